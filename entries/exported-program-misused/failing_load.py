"""torch.export.load reads a file: given the ExportedProgram itself, it fails on `.tell`.

`torch.export.load` takes a path or an open binary file written by `torch.export.save`.
Handed the in-memory `ExportedProgram`, it treats it as a file object, and the first
file method it calls is missing: `AttributeError: 'ExportedProgram' object has no
attribute 'tell'`.
"""
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
    torch.export.load(exported)  # AttributeError: 'ExportedProgram' object has no attribute 'tell'


if __name__ == "__main__":
    main()
