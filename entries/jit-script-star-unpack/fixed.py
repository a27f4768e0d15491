"""Pass the shape list itself: Tensor.view accepts a list of sizes as one argument.

`x.view(new_shape)` needs no unpacking, so TorchScript compiles it whatever the list's
length. The scripted module is saved, loaded and compared with eager, the round trip
the corpus runs.
"""
import io

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
        return x.view(new_shape).permute(0, 2, 1, 3)  # the list as one argument

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        ctx = torch.softmax(q @ k.transpose(-1, -2) / self.head_dim**0.5, dim=-1) @ v
        return self.out(ctx.permute(0, 2, 1, 3).flatten(2))


model = SelfAttention().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    x = torch.randn(3, 7, 16)
    torch.testing.assert_close(scripted(x), model(x))
    print("ok: the scripted attention saves, loads and matches eager on a batch of 3, length 7")


if __name__ == "__main__":
    main()
