"""The TorchScript-based ONNX exporter traces the model and stops at torch.cond the same way."""
import tempfile
from pathlib import Path

import torch
from torch import nn


class GatedResidual(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        def heavy(x):
            return x + torch.tanh(self.proj(x))

        def light(x):
            return x * 0.5

        return torch.cond(x.mean() > 0, heavy, light, (x,))


model = GatedResidual().eval()
example_args = (torch.randn(4, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "model.onnx"), dynamo=False)


if __name__ == "__main__":
    main()
