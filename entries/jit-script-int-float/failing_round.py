"""In TorchScript round() of a float returns a float, which cannot end a slice.

Python's `round(x)` returns an int; TorchScript's returns a float. Used as a slice
bound, the float matches no variant of `slice`.
"""
import torch
from torch import nn


class HalfTokenPool(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        keep = round(tokens.shape[1] / 2)
        return self.proj(tokens[:, :keep])


model = HalfTokenPool().eval()
example_args = (torch.randn(2, 10, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
