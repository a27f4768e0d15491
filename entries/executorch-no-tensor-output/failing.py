"""An ExecuTorch program must return at least one tensor.

The model returns a Python int computed from an input's shape, which torch.export
keeps as a plain number output (a constant here, a symbolic int with a dynamic
dimension). ExecuTorch's memory planning then finds no tensor among the outputs to plan,
and `to_executorch()` stops on an internal assertion.
"""
import torch
from torch import nn


class ScalarOutput(nn.Module):
    """PyTorch's ExportDB example `scalar_output`: returns the width plus one."""

    def forward(self, x):
        return x.shape[1] + 1


model = ScalarOutput().eval()
example_args = (torch.randn(3, 2),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args)
    to_edge_transform_and_lower(exported).to_executorch()


if __name__ == "__main__":
    main()
