"""The same bfloat16 model through the TorchScript-based exporter: onnxruntime's CPU
provider has no bfloat16 kernel for the graph's first arithmetic node either."""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class GatedMLP(nn.Module):
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
    torch.onnx.export(model, example_args, str(path), dynamo=False)
    ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])  # fails here


if __name__ == "__main__":
    main()
