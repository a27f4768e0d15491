"""A saved program whose output is a custom pytree type cannot be loaded where that type is not registered.

`Classifier` returns a dataclass, as transformers models return a `ModelOutput`. Export
and save need the class registered as a pytree node with a serialized name, so the
exporting process registers it (`register_outputs()`). The `.pt2` stores the output's
structure under that name only, not the class. The serving process, started fresh,
never registers it, so `torch.export.load` cannot rebuild the output spec and refuses
the file.
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
    def __init__(self, dim: int = 16, classes: int = 3):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        hidden = torch.relu(self.encoder(x))
        return ClassifierOutput(logits=self.head(hidden), hidden=hidden)


torch.manual_seed(0)  # the exporting and the loading process build the same weights
model = Classifier().eval()  # exporting it needs register_outputs() first
example_args = (torch.randn(2, 16),)


def export_and_save(path: str) -> None:
    """The exporting process: it registers the output class, so export and save succeed."""
    register_outputs()
    torch.export.save(torch.export.export(model, example_args), path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "classifier.pt2")
        subprocess.run([sys.executable, __file__, "--save", path], check=True)
        # This process, like a serving process, never registered ClassifierOutput.
        program = torch.export.load(path)  # fails: mylib.ClassifierOutput is not registered here
        program.module()(*example_args)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
