"""While torch.jit.trace runs the model, x.shape[i] is a 0-d tensor, and round() refuses it.

The pooling stage keeps the first half of the tokens, rounded: `round(n / 2)`. In eager
mode `n` is an int. Under the tracer, sizes are tensors, so that later calls can reuse
them; `n / 2` is then a tensor too, and Python's round() does not accept tensors.
"""
import torch
from torch import nn


class HalfTokenPool(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):  # (batch, tokens, dim)
        keep = round(tokens.shape[1] / 2)
        return self.proj(tokens[:, :keep])


model = HalfTokenPool().eval()
example_args = (torch.randn(2, 10, 8),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
