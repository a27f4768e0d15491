"""An MKL-DNN tensor in forward has no ONNX form: the legacy exporter refuses `aten::to_mkldnn`.

A model tuned for CPU inference converts its input to the MKL-DNN (oneDNN) layout with
`Tensor.to_mkldnn()`, runs its convolutions on it and converts back with `to_dense()`.
Eager runs it. The TorchScript-based ONNX exporter (`dynamo=False`) records the layout
conversions as operators, and ONNX has no operator for a tensor's memory layout:
`Exporting the operator 'aten::to_mkldnn' to ONNX opset version 20 is not supported`.
"""
import io

import torch
from torch import nn


class MkldnnConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3))

    def forward(self, x):
        return self.body(x.to_mkldnn()).to_dense()


model = MkldnnConvNet().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
