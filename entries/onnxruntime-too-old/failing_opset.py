"""An ONNX file that imports a newer ai.onnx opset than the onnxruntime that loads it.

Besides the IR version, an ONNX file lists the operator set version it uses for each
domain. onnxruntime accepts ai.onnx opsets up to the last one released when it was
built; newer ones it treats as still under development and, by default, refuses.
onnxruntime 1.31.1 accepts up to opset 26.

To stand for a file written by newer tools, the script exports a small model with the
legacy exporter (opset 20 by default on torch 2.13), raises the ai.onnx opset import to
27, saves it and opens it with onnxruntime.
"""
import io
import tempfile
from pathlib import Path

import onnx
import onnxruntime
import torch
from torch import nn

NEWER_OPSET = 27  # one above the newest ai.onnx opset onnxruntime 1.31.1 accepts


class TinyClassifier(nn.Module):
    def __init__(self, in_dim: int = 16, hidden: int = 32, classes: int = 4):
        super().__init__()
        self.hidden = nn.Linear(in_dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


torch.manual_seed(0)
model = TinyClassifier().eval()
example_args = (torch.randn(4, 16),)


def main():
    buf = io.BytesIO()
    torch.onnx.export(model, example_args, buf, dynamo=False, input_names=["x"])
    proto = onnx.load_from_string(buf.getvalue())
    for opset in proto.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = NEWER_OPSET
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        onnx.save(proto, path)
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
