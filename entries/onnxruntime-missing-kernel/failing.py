"""onnxruntime has no CPU kernel for an operator at the element type the graph uses.

A model kept in bfloat16, as language models are usually loaded, exports to ONNX
without complaint: every node is typed bfloat16. onnxruntime's CPU execution provider
registers Mul, MatMul, Add and most other kernels for float, double, the integer types
and float16, but not for bfloat16, so creating the session fails before anything runs.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class GatedMLP(nn.Module):
    """The feed-forward block of a small decoder layer."""

    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(nn.functional.silu(self.gate(x)) * self.up(x))


torch.manual_seed(0)
model = GatedMLP().to(torch.bfloat16).eval()
example_args = (torch.randn(2, 5, 16, dtype=torch.bfloat16),)


def main():
    path = Path(tempfile.mkdtemp()) / "mlp.onnx"
    torch.onnx.export(model, example_args, dynamo=True).save(str(path))
    ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])  # fails here


if __name__ == "__main__":
    main()
