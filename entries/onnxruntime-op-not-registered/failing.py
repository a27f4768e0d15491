"""onnxruntime refuses an ONNX file whose node is a custom-domain op with no kernel registered.

A vision backbone uses a fused SiLU kernel, wrapped in an autograd.Function. Its
symbolic() writes the node as `vendor::FusedSiLU`, the name of the kernel in the
team's own runtime library, so the legacy exporter succeeds. onnxruntime, asked to
load the file without that library, has no implementation for the domain and the op.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class FusedSiLU(torch.autograd.Function):
    """x * sigmoid(x) in one kernel on the training side; exported as the vendor's op."""

    @staticmethod
    def forward(ctx, x):
        return x * torch.sigmoid(x)

    @staticmethod
    def symbolic(g, x):
        return g.op("vendor::FusedSiLU", x)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(16)

    def forward(self, images):
        return FusedSiLU.apply(self.bn(self.conv(images)))


model = Stem().eval()
example_args = (torch.randn(1, 3, 64, 64),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stem.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False, custom_opsets={"vendor": 1})
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
