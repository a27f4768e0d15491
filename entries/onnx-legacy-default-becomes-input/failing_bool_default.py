"""A bool default reaches forward as a tensor, and a function that needs a bool rejects it.

timm's EVA-02 vision transformer declares `forward(self, x, attn_mask=None,
is_causal: bool = False)` and hands `is_causal` down to
`F.scaled_dot_product_attention`. Exported with the TorchScript-based exporter and only
the image as input, the exporter fills `is_causal` with its default and the tracer turns
it into `tensor(False)`; the attention call then fails during the trace with
`TypeError: scaled_dot_product_attention(): argument 'is_causal' must be bool, not
Tensor`.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, is_causal: bool = False):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        return self.proj(out.transpose(1, 2).reshape(b, n, c))


class Encoder(nn.Module):
    """Patch tokens in, pooled features out; is_causal is an option with a default."""

    def __init__(self, dim: int = 16):
        super().__init__()
        self.attn = Attention(dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, is_causal: bool = False):
        x = x + self.attn(self.norm(x), is_causal=is_causal)
        return x.mean(dim=1)


model = Encoder().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails while tracing


if __name__ == "__main__":
    main()
