"""A caller that passes None to an unannotated argument is rejected when it is compiled.

The attention layer's `attn_mask` has no annotation, so TorchScript types it Tensor. The
encoder block calls the layer with an explicit `None`, and compiling the block fails at
that call site.
"""
import torch
from torch import nn


class TinySelfAttention(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x, attn_mask=None):  # attn_mask: no annotation
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        if attn_mask is not None:
            scores = scores + attn_mask
        return self.out(scores.softmax(dim=-1) @ v)


class EncoderBlock(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = TinySelfAttention(dim)

    def forward(self, x):
        return x + self.attn(self.norm(x), None)  # no mask in the encoder


model = EncoderBlock().eval()
example_args = (torch.randn(2, 5, 8),)


def main():
    torch.jit.script(model)  # fails: None is not a Tensor


if __name__ == "__main__":
    main()
