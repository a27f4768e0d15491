"""Give the autograd.Function a `symbolic` that writes its forward in ONNX operators.

With a static `symbolic(g, ...)` method the legacy exporter calls it instead of looking
inside the Function: bias add, LeakyRelu and the gain become Add, LeakyRelu and Mul
nodes. The exported model matches eager in onnxruntime, and eager training keeps the
Function's hand-written backward.
"""
import io

import onnxruntime
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

    @staticmethod
    def symbolic(g, x, bias, negative_slope, scale):
        # The same computation as the kernel, in ONNX operators.
        bias = g.op("Reshape", bias, g.op("Constant", value_t=torch.tensor([1, -1, 1, 1])))
        activated = g.op("LeakyRelu", g.op("Add", x, bias), alpha_f=negative_slope)
        return g.op("Mul", activated, g.op("Constant", value_t=torch.tensor(scale, dtype=torch.float32)))


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
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["x"])
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {"x": example_args[0].numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args), rtol=1e-4, atol=1e-5)
    print("ok: with a symbolic on the Function the legacy export matches eager in onnxruntime")


if __name__ == "__main__":
    main()
