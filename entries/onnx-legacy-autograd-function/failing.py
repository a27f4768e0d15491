"""The legacy ONNX exporter cannot export a Python autograd.Function that wraps a kernel.

StyleGAN2-style generators apply bias, leaky ReLU and a gain in one compiled kernel,
called through a `torch.autograd.Function` that supplies its own backward. Here the
kernel is a `torch.library` custom op, `tinylib::fused_bias_act`. The TorchScript-based
exporter (`dynamo=False`) tries to inline the Function's forward, finds no ONNX
symbolic for the kernel inside it, keeps the Function as an opaque Python operator, and
then fails: `Couldn't export Python operator FusedBiasLeakyReLU`.
"""
import io

import torch
from torch import nn


@torch.library.custom_op("tinylib::fused_bias_act", mutates_args=())
def fused_bias_act(x: torch.Tensor, bias: torch.Tensor, negative_slope: float, scale: float) -> torch.Tensor:
    # Stands in for a compiled CUDA/C++ kernel.
    return nn.functional.leaky_relu(x + bias.view(1, -1, 1, 1), negative_slope) * scale


@fused_bias_act.register_fake
def _(x, bias, negative_slope, scale):
    return torch.empty_like(x)


class FusedBiasLeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bias, negative_slope, scale):
        out = torch.ops.tinylib.fused_bias_act(x, bias, negative_slope, scale)
        ctx.save_for_backward(out)
        ctx.negative_slope, ctx.scale = negative_slope, scale
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        grad_x = grad_out * torch.where(out > 0, ctx.scale, ctx.scale * ctx.negative_slope)
        return grad_x, grad_x.sum((0, 2, 3)), None, None


class StyledConvBlock(nn.Module):
    def __init__(self, channels: int = 8):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.act_bias = nn.Parameter(torch.randn(channels) * 0.1)

    def forward(self, x):
        return FusedBiasLeakyReLU.apply(self.conv(x), self.act_bias, 0.2, 2 ** 0.5)


model = StyledConvBlock().eval()
example_args = (torch.randn(1, 8, 16, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, input_names=["x"])


if __name__ == "__main__":
    main()
