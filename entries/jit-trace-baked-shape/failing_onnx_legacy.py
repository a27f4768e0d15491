"""The TorchScript-based ONNX exporter traces the model, so it bakes the split sizes too.

The batch axis is declared dynamic, which makes onnxruntime accept a batch of 3, but the
Split node still carries the sizes [4, 4] read out with `.tolist()` while tracing.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class ImageConnector(nn.Module):
    def __init__(self, dim: int = 16, out: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, out)

    def forward(self, patches):
        flat = self.proj(patches.flatten(0, 1))
        counts = torch.full((patches.shape[0],), patches.shape[1])
        per_sample = flat.split(counts.tolist())
        return torch.stack([f.mean(dim=0) for f in per_sample])


model = ImageConnector().eval()
example_args = (torch.randn(2, 4, 16),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, path, dynamo=False, input_names=["patches"],
                          dynamic_axes={"patches": {0: "batch"}})
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        session.run(None, {"patches": torch.randn(3, 4, 16).numpy()})


if __name__ == "__main__":
    main()
