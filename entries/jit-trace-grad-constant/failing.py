"""torch.jit.trace cannot bake a tensor that requires grad into the graph as a constant.

The layer is the invertible 1x1 convolution of Glow-style flows (Glow-TTS, WaveGlow).
Before inference, `store_inverse()` caches the inverse of the weight in a plain
attribute, so the reverse pass need not invert the matrix on every call. The cache is
computed from a Parameter with autograd on, so it requires grad. It is neither a
parameter, a buffer nor an input of the traced function, so the tracer would have to
store it in the graph as a constant, and it refuses a constant that requires grad.
"""
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
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
