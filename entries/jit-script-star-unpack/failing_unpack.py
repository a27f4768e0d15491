"""A starred assignment from a List[Tensor] argument fails for the same reason.

The head takes a feature pyramid as a list and separates the finest level from the
rest with `top, *rest = features`. The list's length is only known at run time, so
TorchScript cannot compile the unpacking.
"""
from typing import List

import torch
from torch import nn


class PyramidHead(nn.Module):
    def __init__(self, channels: int = 8):
        super().__init__()
        self.top = nn.Conv2d(channels, channels, 1)

    def forward(self, features: List[torch.Tensor]):
        top, *rest = features
        out = self.top(top)
        for f in rest:
            out = out + nn.functional.interpolate(f, size=out.shape[-2:], mode="nearest")
        return out


model = PyramidHead().eval()
example_args = ([torch.randn(2, 8, 16, 16), torch.randn(2, 8, 8, 8), torch.randn(2, 8, 4, 4)],)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
