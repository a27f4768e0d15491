"""The same gap for an operator defined the older way, with torch.library.Library.

The schema is defined and a CPU kernel registered, nothing for the Meta or fake key: the
shape of what C++ extensions (TORCH_LIBRARY with only CPU and CUDA kernels) give export
too. Fake tensors find no kernel they can run, and torch.export stops with
`UnsupportedOperatorException: tinylib.softclip.default`.
"""
import torch
from torch import nn

lib = torch.library.Library("tinylib", "FRAGMENT")
lib.define("softclip(Tensor x, float limit) -> Tensor")


def softclip_cpu(x, limit):
    return limit * torch.tanh(x / limit)


lib.impl("softclip", softclip_cpu, "CPU")


class Clipped(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.ops.tinylib.softclip(self.proj(x), 3.0)


model = Clipped().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
