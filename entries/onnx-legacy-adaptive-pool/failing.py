"""The TorchScript-based ONNX exporter can only export adaptive pooling whose output size divides the input size.

The model pools a feature map to a fixed 7x7 grid with `nn.AdaptiveAvgPool2d((7, 7))`,
as timm's CSATv2 does before its head. With a 10x10 feature map, 7 does not divide 10:
the windows have different sizes, no single AveragePool kernel can express them, and
the legacy exporter stops with `Unsupported: ONNX export of operator
adaptive_avg_pool2d, output size that are not factor of input size`.
"""
import io

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
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
