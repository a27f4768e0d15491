"""With onnxscript installed (`pip install onnxscript`), the same export works.

This is the same script as failing.py without the finder that hides onnxscript; in a
real environment the fix is installing the package, which also brings `onnx`. Then the
export succeeds and onnxruntime agrees with eager.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import onnxscript  # noqa: F401  (the fix: this import must succeed)
import torch
from torch import nn


class SmallConvNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = SmallConvNet().eval()
example_args = (torch.randn(1, 3, 32, 32),)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args), rtol=1e-4, atol=1e-5)
    print("ok: with onnxscript importable the dynamo export matches eager in onnxruntime")


if __name__ == "__main__":
    main()
