"""The same unregistered output type in an AOTInductor package: calling the loaded package fails.

The exporting process registers `ClassifierOutput`, exports the classifier and compiles
it with `aoti_compile_and_package`. The package keeps the output structure as text that
names the type. A fresh process loads the package without registering the class; the
first call, which rebuilds the output from that text, stops with the pytree error.
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


def export_and_compile(path: str) -> None:
    """The exporting process: it registers the output class, so export and compilation succeed."""
    register_outputs()
    torch._inductor.aoti_compile_and_package(torch.export.export(model, example_args), package_path=path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "classifier.pt2")
        subprocess.run([sys.executable, __file__, "--save", path], check=True)
        # This process, like a serving process, never registered ClassifierOutput.
        compiled = torch._inductor.aoti_load_package(path)
        compiled(*example_args)  # fails: mylib.ClassifierOutput is not registered here


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_compile(sys.argv[2])
    else:
        main()
