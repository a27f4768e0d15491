"""A keyword-only parameter cannot receive an example input either.

`example_kwarg_inputs` binds its keys to the ordinary parameters of `forward`; a
parameter declared after `*` (or collected by `**kwargs`) is not among them, and the
tracer rejects the key by name, even when its value is a tensor.
"""
import torch
from torch import nn


class FiLMBlock(nn.Module):
    """Scales and shifts features by a conditioning vector passed by keyword."""

    def __init__(self, dim: int = 8, cond_dim: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.film = nn.Linear(cond_dim, 2 * dim)

    def forward(self, x, *, cond):
        scale, shift = self.film(cond).chunk(2, dim=-1)
        return self.proj(x) * (1 + scale) + shift


model = FiLMBlock().eval()
example_args = ()
example_kwargs = {"x": torch.randn(2, 8), "cond": torch.randn(2, 4)}


def main():
    torch.jit.trace(model, example_kwarg_inputs=example_kwargs)


if __name__ == "__main__":
    main()
