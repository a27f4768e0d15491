"""torch.export's lowering fails on attention output that is viewed with batch and sequence merged.

The block runs `F.scaled_dot_product_attention`, moves the heads back next to the
features with `transpose(1, 2).contiguous()`, and flattens batch and sequence with
`.view(B * N, C)` before the output projection, as GPT-2's `Conv1D` does with
`x.view(-1, x.size(-1))`. It runs in eager mode and `torch.export.export` captures it,
but `run_decompositions()` fails with `Cannot view a tensor with shape ... and strides`.
"""
import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q = self.q(x).view(B, N, self.heads, -1).transpose(1, 2)
        k = self.k(x).view(B, N, self.heads, -1).transpose(1, 2)
        v = self.v(x).view(B, N, self.heads, -1).transpose(1, 2)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        attn = attn.transpose(1, 2).contiguous()
        return self.out(attn.view(B * N, C)).view(B, N, C)


model = SelfAttention().eval()
example_args = (torch.randn(2, 8, 32),)


def main():
    exported = torch.export.export(model, example_args)
    exported.run_decompositions()  # fails


if __name__ == "__main__":
    main()
