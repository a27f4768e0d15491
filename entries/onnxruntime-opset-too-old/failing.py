"""An ONNX file stamped with ai.onnx opset 6, run on today's onnxruntime.

onnxruntime has kernels for the standard operators from opset 7 on. A file from
converters built on ONNX 1.1.2 or older (whose newest opset was 6) names versions of
operators such as Gemm and BatchNormalization that no onnxruntime kernel implements,
and the session refuses the first such node while it is being created.

To stand for such a file, the script exports a small classifier with the legacy
exporter at opset 9 and lets onnx's own version converter rewrite it for opset 6 (it
adds the attributes that opset required, `broadcast` on Gemm, `is_test` on
BatchNormalization). The file passes onnx's checker; onnxruntime cannot run it.
"""
import io
import tempfile
from pathlib import Path

import onnx
import onnxruntime
import torch
from onnx import version_converter
from torch import nn

OLD_OPSET = 6  # the newest opset of ONNX 1.1.2; onnxruntime's kernels start at 7


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(8, 16)
        self.norm = nn.BatchNorm1d(16)
        self.out = nn.Linear(16, 3)

    def forward(self, x):
        return self.out(torch.relu(self.norm(self.hidden(x))))


torch.manual_seed(0)
model = Classifier().eval()
example_args = (torch.randn(2, 8),)


def old_file(path: Path) -> None:
    """The model as a converter built on ONNX 1.1.2 would have written it: ai.onnx opset 6."""
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, opset_version=9, input_names=["x"])
    proto = version_converter.convert_version(onnx.load_from_string(buffer.getvalue()), OLD_OPSET)
    onnx.checker.check_model(proto)
    onnx.save(proto, path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "old.onnx"
        old_file(path)
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
