"""An ONNX file with a newer IR version than the onnxruntime that loads it.

Every ONNX file is stamped with the IR version (the version of the file format itself)
that its writer used. onnxruntime refuses a stamp above the highest IR version it was
built for. onnxruntime 1.31.1 reads up to IR 13; torch 2.13's exporter writes IR 10.

To stand for a file written by newer tools, the script exports a small model, raises
its `ir_version` to 14, saves it and opens it with onnxruntime, which runs the same
check it runs on a file that really came from a newer writer.
"""
import tempfile
from pathlib import Path

import onnx
import onnxruntime
import torch
from torch import nn

NEWER_IR_VERSION = 14  # one above the highest IR version onnxruntime 1.31.1 reads


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
    proto = torch.onnx.export(model, example_args, dynamo=True, input_names=["x"]).model_proto
    proto.ir_version = NEWER_IR_VERSION
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        onnx.save(proto, path)
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
