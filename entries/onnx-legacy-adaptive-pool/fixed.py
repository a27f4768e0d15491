"""Export with the dynamo-based exporter, which decomposes adaptive pooling of any size.

`torch.onnx.export(..., dynamo=True)` expresses the uneven windows with Gather, Add and
Div operators instead of one AveragePool, and the result matches eager in onnxruntime.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class GridPoolHead(nn.Module):
    def __init__(self, channels: int = 8, classes: int = 5):
        super().__init__()
        self.features = nn.Conv2d(3, channels, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d((7, 7))
        self.head = nn.Linear(channels * 7 * 7, classes)

    def forward(self, x):
        return self.head(self.pool(self.features(x)).flatten(1))


model = GridPoolHead().eval()
example_args = (torch.randn(2, 3, 10, 10),)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x = torch.randn(2, 3, 10, 10)
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print("ok: the dynamo-based exporter handles the 10x10 -> 7x7 adaptive pooling and matches eager")


if __name__ == "__main__":
    main()
