"""The TorchScript-based ONNX exporter only writes opsets that the ONNX library inside torch knows.

A user who wants ONNX's newer operators (`Attention` came in opset 23) asks for a recent
opset. With `dynamo=False`, torch 2.13 writes up to opset 20 as supported, warns for 21
to 23, and refuses 24 and later when the first node is built: its bundled ONNX shape
inference does not know them (`Unsupported onnx_opset_version: 24`), whatever the
installed `onnx` package supports.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


model = SelfAttention().eval()
example_args = (torch.randn(2, 6, 32),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), opset_version=24, dynamo=False)  # fails


if __name__ == "__main__":
    main()
