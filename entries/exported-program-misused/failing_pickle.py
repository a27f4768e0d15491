"""An ExportedProgram written with torch.save does not come back with torch.load.

`torch.save` pickles the object. Since torch 2.6, `torch.load` unpickles with
`weights_only=True` by default, which accepts tensors and plain containers and refuses
every other class: `Unsupported global: GLOBAL
torch.export.exported_program.ExportedProgram`. (With `weights_only=False` the program's
graph module is rebuilt by tracing it again, which fails too; see failing_unpickle.py.)
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return torch.relu(x * self.weight)


model = Scale().eval()
example_args = (torch.randn(2, 4),)


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "exported.pt"
        torch.save(exported, path)  # pickles the object: not the export format
        torch.load(path)  # UnpicklingError: Unsupported global ... ExportedProgram


if __name__ == "__main__":
    main()
