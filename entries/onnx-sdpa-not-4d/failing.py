"""The ONNX exporter translates scaled_dot_product_attention only for 4-D inputs.

Windowed vision transformers attend within blocks of the image and keep the block axis
next to the head axis, so their query, key and value are 5-D: (batch, heads, blocks,
tokens, head_dim). `F.scaled_dot_product_attention` accepts any number of leading
axes. `torch.export` captures it, but the ONNX translation (`dynamo=True`) asserts four
dimensions and stops with "only 4D query, key, and value are supported".
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class BlockAttention(nn.Module):
    """Self-attention inside each block of tokens, as in NesT and Hiera."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):  # (batch, blocks, tokens, dim)
        batch, blocks, tokens, dim = x.shape
        qkv = self.qkv(x).reshape(batch, blocks, tokens, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(3, 0, 4, 1, 2, 5).unbind(0)  # each (batch, heads, blocks, tokens, head_dim)
        x = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x.permute(0, 2, 3, 1, 4).reshape(batch, blocks, tokens, dim))


model = BlockAttention().eval()
example_args = (torch.randn(2, 4, 9, 32),)


def main():
    torch.onnx.export(model, example_args, dynamo=True)


if __name__ == "__main__":
    main()
