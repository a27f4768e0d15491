"""Convert the old file to a supported opset with onnx's version converter, then run it.

The same opset-6 file as `failing.py`. `onnx.version_converter.convert_version` rewrites
each node for the target opset (dropping Gemm's `broadcast` and BatchNormalization's
`is_test`, which later opsets no longer have), and onnxruntime then runs the file and
matches eager. Re-exporting from the PyTorch model, when you still have it, is as good.
"""
import io
import tempfile
from pathlib import Path

import onnx
import onnxruntime
import torch
from onnx import version_converter
from torch import nn

OLD_OPSET, TARGET_OPSET = 6, 13


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
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, opset_version=9, input_names=["x"])
    proto = version_converter.convert_version(onnx.load_from_string(buffer.getvalue()), OLD_OPSET)
    onnx.save(proto, path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp) / "old.onnx", Path(tmp) / "new.onnx"
        old_file(old)
        converted = version_converter.convert_version(onnx.load(old), TARGET_OPSET)
        onnx.checker.check_model(converted)
        onnx.save(converted, new)
        session = onnxruntime.InferenceSession(str(new), providers=["CPUExecutionProvider"])
        x = torch.randn(2, 8)  # the file keeps the batch size it was exported with
        (got,) = session.run(None, {"x": x.numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-5, atol=1e-5)
    print(f"ok: opset {OLD_OPSET} converted to {TARGET_OPSET}; onnxruntime matches eager")


if __name__ == "__main__":
    main()
