"""The legacy ONNX exporter cannot translate scaled_dot_product_attention with enable_gqa=True.

Grouped-query attention gives keys and values fewer heads than queries, and
`F.scaled_dot_product_attention(..., enable_gqa=True)` shares each key/value head across
its group of query heads. The TorchScript-based exporter (`dynamo=False`) has no
translation for that flag and stops with an AssertionError while converting the graph.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class GroupedQueryAttention(nn.Module):
    """Self-attention with four query heads sharing two key/value heads."""

    def __init__(self, dim: int = 32, heads: int = 4, kv_heads: int = 2):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, heads * self.head_dim)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.head_dim)
        self.out = nn.Linear(heads * self.head_dim, dim)

    def forward(self, x):  # (batch, tokens, dim)
        batch, tokens, _ = x.shape
        q = self.q(x).view(batch, tokens, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(x).view(batch, tokens, 2, self.kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return self.out(attended.transpose(1, 2).reshape(batch, tokens, -1))


model = GroupedQueryAttention().eval()
example_args = (torch.randn(2, 6, 32),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, input_names=["x"])


if __name__ == "__main__":
    main()
