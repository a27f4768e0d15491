"""Updating a plain tensor attribute in place is rejected once the program is decomposed.

`torch.export` records the in-place update of the constant `self.steps`, but
`run_decompositions()` (which the ONNX exporter, AOTInductor and ExecuTorch all run)
refuses to lower a program that mutates a constant.
"""
import torch
from torch import nn


class StepCounter(nn.Module):
    def __init__(self, dim: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.steps = torch.zeros(1)  # plain attribute: not a parameter, not a buffer

    def forward(self, x):
        self.steps.add_(1)  # in-place update of a constant
        return self.proj(x) + self.steps


model = StepCounter().eval()
example_args = (torch.randn(2, 4),)


def main():
    exported = torch.export.export(model, example_args)
    exported.run_decompositions()  # fails: the constant is mutated in forward


if __name__ == "__main__":
    main()
