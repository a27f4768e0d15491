"""torch.jit.trace meets a submodule that was wrapped with torch.compile.

The model compiles one of its blocks with `torch.compile` in `__init__`, a common way to
speed up the hot part of a network. `torch.jit.trace` (and every tool built on it, such as
FLOP counters and the legacy ONNX exporter) refuses to trace through code that Dynamo
optimises: `RuntimeError: Detected that you are using FX to torch.jit.trace a
dynamo-optimized function. This is not supported at the moment.`
"""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.lin(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = torch.compile(Block())  # an OptimizedModule wrapping Block

    def forward(self, x):
        return self.block(x) * 2


model = Model().eval()
example_args = (torch.randn(2, 8),)


def main():
    torch.jit.trace(model, example_args)  # RuntimeError: ... trace a dynamo-optimized function


if __name__ == "__main__":
    main()
