"""TorchScript compiles a `with` statement only for context managers it can compile itself.

`with contextlib.nullcontext():` is harmless in eager mode, but TorchScript tries to compile
`nullcontext` as a TorchScript class, and that class defines `async def __aenter__`,
which is outside the subset. The error names the coroutine method, not the `with` line.
"""
import contextlib

import torch
from torch import nn


class MaybeNoGrad(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        with contextlib.nullcontext():
            y = self.proj(x).relu()
        return y


model = MaybeNoGrad().eval()
example_args = (torch.randn(4, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
