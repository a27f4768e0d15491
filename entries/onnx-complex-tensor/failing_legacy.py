"""A precomputed complex table becomes a constant the TorchScript-based exporter cannot store.

The original LLaMA code (and ports of it such as llama2.c) computes `freqs_cis` once with
`torch.polar` and keeps it as a plain attribute or a non-persistent buffer, then slices
it in `forward`. With `dynamo=False` the tracer records that table as a constant, and the
exporter fails on its complex dtype while converting the constant, before it reaches
`view_as_complex`: "ScalarType ComplexFloat is an unexpected tensor scalar type".
"""
import io

import torch
from torch import nn


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    angles = torch.outer(torch.arange(end).float(), freqs)
    return torch.polar(torch.ones_like(angles), angles)  # complex64


class RotaryQuery(nn.Module):
    """Query projection with the LLaMA rotary embedding and a precomputed complex table."""

    def __init__(self, dim: int = 16, heads: int = 2, max_len: int = 32):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.freqs_cis = precompute_freqs_cis(self.head_dim, max_len)  # a plain attribute, as in LLaMA
        self.q = nn.Linear(dim, dim)

    def forward(self, x):  # x: (batch, tokens, dim)
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.head_dim)
        freqs_cis = self.freqs_cis[:s].view(1, s, 1, -1)  # reshape_for_broadcast
        q_complex = torch.view_as_complex(q.float().reshape(b, s, self.heads, -1, 2))
        return torch.view_as_real(q_complex * freqs_cis).flatten(3).type_as(x)


model = RotaryQuery().eval()
example_args = (torch.randn(2, 6, 16),)


def main():
    # fails: RuntimeError: ScalarType ComplexFloat is an unexpected tensor scalar type
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)


if __name__ == "__main__":
    main()
