"""TorchScript cannot star-unpack a list whose length it does not know.

The attention layer splits the hidden size into heads the way many older transformer
implementations do: it builds the new shape with `x.size()[:-1] + (heads, head_dim)`
and calls `x.view(*new_shape)`. In TorchScript `x.size()` is a `List[int]`, so the new
shape is a list too, and a list has no length at compile time: the compiler cannot turn
`*new_shape` into a fixed number of arguments.
"""
import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def split_heads(self, x):
        new_shape = x.size()[:-1] + (self.heads, self.head_dim)
        return x.view(*new_shape).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        ctx = torch.softmax(q @ k.transpose(-1, -2) / self.head_dim**0.5, dim=-1) @ v
        return self.out(ctx.permute(0, 2, 1, 3).flatten(2))


model = SelfAttention().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
