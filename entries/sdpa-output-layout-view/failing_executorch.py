"""ExecuTorch lowering decomposes scaled_dot_product_attention the same way and fails the same way."""
import torch
import torch.nn.functional as F
from executorch.exir import to_edge_transform_and_lower
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
    to_edge_transform_and_lower(exported).to_executorch()  # fails


if __name__ == "__main__":
    main()
