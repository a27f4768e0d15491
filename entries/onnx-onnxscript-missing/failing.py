"""The dynamo-based ONNX exporter needs onnxscript, which torch does not install.

`pip install torch` brings neither `onnx` nor `onnxscript`. `torch.onnx.export` with
`dynamo=True` (the default since 2.9) imports onnxscript only when it is called, so
`import torch` works and the export call fails with `ModuleNotFoundError: No module named
'onnxscript'`.

This environment has onnxscript installed, so the script hides it first, honestly: the
finder below declines to locate `onnxscript` (and its submodules) and Python raises its own
ModuleNotFoundError from torch's `import onnxscript`, exactly as in an environment where the
package was never installed. Nothing else is changed.
"""
import importlib.machinery
import sys

import torch
from torch import nn


class _WithoutOnnxscript(importlib.machinery.PathFinder):
    """Finds modules on sys.path like the standard finder, except onnxscript."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == "onnxscript" or name.startswith("onnxscript."):
            return None
        return super().find_spec(name, path, target)


sys.meta_path = [_WithoutOnnxscript if f is importlib.machinery.PathFinder else f for f in sys.meta_path]


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
    torch.onnx.export(model, example_args, dynamo=True)


if __name__ == "__main__":
    main()
