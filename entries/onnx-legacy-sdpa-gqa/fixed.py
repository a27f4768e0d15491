"""Repeat the key/value heads yourself and call attention without enable_gqa.

`repeat_interleave` over the head axis gives every query head its own copy of its
group's key and value, which is what `enable_gqa=True` does inside the kernel. Plain
`scaled_dot_product_attention` has a legacy ONNX translation, so the model exports and
onnxruntime matches eager, on the example and on another batch and length.
"""
import io

import onnxruntime
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
        group = self.heads // self.kv_heads  # query heads per key/value head
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        attended = F.scaled_dot_product_attention(q, k, v)
        return self.out(attended.transpose(1, 2).reshape(batch, tokens, -1))


model = GroupedQueryAttention().eval()
example_args = (torch.randn(2, 6, 32),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["x"],
                      dynamic_axes={"x": {0: "batch", 1: "tokens"}})
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for x in (example_args[0], torch.randn(3, 9, 32)):
        (got,) = session.run(None, {"x": x.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print("ok: with the heads repeated by hand the legacy export matches eager in onnxruntime")


if __name__ == "__main__":
    main()
