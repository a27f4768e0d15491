"""TorchScript can zip a ModuleList only with iterables whose length is known at compile time.

The model is an FPN-style neck: one 1x1 conv per backbone stage turns a list of feature
maps with different channel counts into maps with a common width. Zipping the
`List[Tensor]` input with the ModuleList fails under `torch.jit.script`, because a list's
length is only known at run time.
"""
from typing import List

import torch
from torch import nn


class ConvertLayer(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), out_channels: int = 8):
        super().__init__()
        self.convert = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])

    def forward(self, xs: List[torch.Tensor]) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        for x, conv in zip(xs, self.convert):
            out.append(torch.relu(conv(x)))
        return out


model = ConvertLayer().eval()
example_args = ([torch.randn(1, 8, 32, 32), torch.randn(1, 16, 16, 16), torch.randn(1, 32, 8, 8)],)


def main():
    torch.jit.script(model)  # fails: zip(List[Tensor], ModuleList)


if __name__ == "__main__":
    main()
