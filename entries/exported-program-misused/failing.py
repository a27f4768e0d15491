"""An ExportedProgram is not a module: calling it raises.

`torch.export.export` returns an `ExportedProgram`, a description of the captured graph
with its signature, weights and constants. Before torch 2.3 it could be called like the
model; since then `__call__` raises and points to `exported_program.module()`, which
builds a callable `torch.nn.Module` from it.
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
    exported(torch.randn(2, 4))  # RuntimeError: Unable to call ExportedProgram directly


if __name__ == "__main__":
    main()
