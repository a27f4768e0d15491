"""Return plain tensors, or register the output class in the loading process before loading.

`model` is the same classifier built with `return_dict=False`: it returns a plain tuple,
whose structure torch knows in every process, so its `.pt2` loads in a fresh process
with nothing registered. A program that keeps the dataclass output loads as well once
the serving process registers `ClassifierOutput` under the same serialized name
(`register_outputs()`, in a real project `import mylib`) before `torch.export.load`.
Both loaded programs match eager.
"""
import dataclasses
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn


@dataclasses.dataclass
class ClassifierOutput:
    logits: torch.Tensor
    hidden: torch.Tensor


def register_outputs():
    """What `import mylib` would do: register the output class under its serialized name."""
    torch.export.register_dataclass(ClassifierOutput, serialized_type_name="mylib.ClassifierOutput")


class Classifier(nn.Module):
    def __init__(self, dim: int = 16, classes: int = 3, return_dict: bool = True):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)
        self.return_dict = return_dict

    def forward(self, x):
        hidden = torch.relu(self.encoder(x))
        logits = self.head(hidden)
        if not self.return_dict:
            return logits, hidden  # a plain tuple: nothing to register anywhere
        return ClassifierOutput(logits=logits, hidden=hidden)


torch.manual_seed(0)  # the exporting and the loading process build the same weights
model = Classifier(return_dict=False).eval()  # fix 1: plain tuple outputs
example_args = (torch.randn(2, 16),)


def dict_model() -> Classifier:
    """The same weights, returning ClassifierOutput (exporting it needs register_outputs())."""
    with_dict = Classifier(return_dict=True).eval()
    with_dict.load_state_dict(model.state_dict())
    return with_dict


def export_and_save(folder: str) -> None:
    """The exporting process saves both programs."""
    torch.export.save(torch.export.export(model, example_args), str(Path(folder) / "tuple.pt2"))
    register_outputs()
    torch.export.save(torch.export.export(dict_model(), example_args), str(Path(folder) / "dataclass.pt2"))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, __file__, "--save", tmp], check=True)
        x = torch.randn(2, 16)  # a new input of the exported shape
        with torch.no_grad():
            logits, hidden = model(x)
            # Fix 1: the tuple program loads in this fresh process, nothing registered.
            program = torch.export.load(str(Path(tmp) / "tuple.pt2"))
            torch.testing.assert_close(program.module()(x), (logits, hidden))
            # Fix 2: register the output class before loading the dataclass program.
            register_outputs()
            program = torch.export.load(str(Path(tmp) / "dataclass.pt2"))
            out = program.module()(x)
            assert isinstance(out, ClassifierOutput), type(out)
            torch.testing.assert_close((out.logits, out.hidden), (logits, hidden))
    print("ok: the tuple program loads as is, the dataclass program once its class is registered; both match eager")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
