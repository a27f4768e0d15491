"""The same refusal for a tensor of indices after the ellipsis: x[..., self.perm].

A normalizing-flow layer shuffles its channels with a fixed permutation kept as a
buffer and indexes the last dimension with it. Any list or tensor used as an index
after `...` is advanced indexing, which TorchScript does not compile there.
"""
import torch
from torch import nn


class ChannelShuffle(nn.Module):
    def __init__(self, channels: int = 6):
        super().__init__()
        self.register_buffer("perm", torch.randperm(channels))
        self.proj = nn.Linear(channels, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x[..., self.perm])


model = ChannelShuffle().eval()
example_args = (torch.randn(2, 3, 6),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
