"""TorchScript cannot compile a forward that takes *args or keyword-only arguments.

A fusion head that accepts any number of feature maps (`*features`) plus a keyword-only
option is idiomatic Python, but TorchScript compiles each method to a fixed signature.
"""
import torch
from torch import nn


class FusionHead(nn.Module):
    def __init__(self, dim: int = 4, branches: int = 2):
        super().__init__()
        self.proj = nn.Linear(dim * branches, 3)

    def forward(self, *features, scale: float = 1.0):
        return self.proj(torch.cat(features, dim=-1)) * scale


model = FusionHead().eval()
example_args = (torch.randn(2, 4), torch.randn(2, 4))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
