"""The TorchScript-based ONNX exporter traces the model and hits the same round() error."""
import tempfile
from pathlib import Path

import torch
from torch import nn


class HalfTokenPool(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        keep = round(tokens.shape[1] / 2)
        return self.proj(tokens[:, :keep])


model = HalfTokenPool().eval()
example_args = (torch.randn(2, 10, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "model.onnx"), dynamo=False)


if __name__ == "__main__":
    main()
