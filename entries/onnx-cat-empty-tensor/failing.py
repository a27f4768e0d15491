"""torch.cat skips a 1-D empty tensor; the ONNX Concat the exporter writes for it does not.

The key projection of an attention layer prepends optional prefix keys (prefix tuning)
and a memory of earlier keys to the new ones. With no prefix configured, the prefix is
`torch.tensor([])`, a placeholder that `torch.cat` has always skipped, so eager mode runs
and the dynamo-based exporter writes the file. Its `Concat` node keeps all three inputs,
the rank-1 placeholder among rank-4 keys, and onnxruntime's shape inference refuses the
node when it loads the file.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class PrefixedKeys(nn.Module):
    """Keys for 4 heads of 8 dims: [prefix, memory, new], along the sequence."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.key = nn.Linear(dim, dim)
        self.prefix = torch.tensor([])  # no prefix: the legacy empty placeholder

    def forward(self, x, memory):  # x (batch, new, dim), memory (batch, heads, old, dim / heads)
        batch, new, dim = x.shape
        k = self.key(x).view(batch, new, self.heads, dim // self.heads).transpose(1, 2)
        return torch.cat([self.prefix, memory, k], dim=-2)


model = PrefixedKeys().eval()
example_args = (torch.randn(2, 5, 32), torch.randn(2, 4, 3, 8))


def main():
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "keys.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=True)
        # fails: [ShapeInferenceError] axis must be in [-rank, rank-1]
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
