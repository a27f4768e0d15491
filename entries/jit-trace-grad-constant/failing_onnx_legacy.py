"""The TorchScript-based ONNX exporter traces the model first, so it stops on the same tensor.

`torch.onnx.export(..., dynamo=False)` records the model with the TorchScript tracer
before translating it to ONNX; the cached inverse that requires grad is refused there,
with the same message as under `torch.jit.trace`.
"""
import io

import torch
from torch import nn


class InvertibleConv1x1(nn.Module):
    def __init__(self, channels: int = 4):
        super().__init__()
        self.weight = nn.Parameter(torch.linalg.qr(torch.randn(channels, channels))[0])
        self.weight_inv = None

    def store_inverse(self):
        self.weight_inv = torch.inverse(self.weight)  # still attached to autograd: requires grad

    def forward(self, z):
        weight = self.weight_inv if self.weight_inv is not None else self.weight
        channels = weight.shape[0]
        return nn.functional.conv2d(z, weight.view(channels, channels, 1, 1))


model = InvertibleConv1x1().eval()
model.store_inverse()
example_args = (torch.randn(1, 4, 8, 8),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, input_names=["z"])


if __name__ == "__main__":
    main()
