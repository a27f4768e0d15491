"""The dynamo ONNX exporter finds no ONNX function for a custom operator.

The model fuses a bias add and a tanh-approximated GELU into one custom operator,
`tinylib::bias_gelu`, defined with `torch.library.custom_op` (the usual way to wrap a
hand-written kernel). torch.export keeps the operator as one opaque node, and the
ONNX exporter has neither a translation nor a decomposition for it, so step 3/3 stops
with `DispatchError: No ONNX function found for <OpOverload(op='tinylib.bias_gelu', ...)>`.
"""
import torch
from torch import nn


@torch.library.custom_op("tinylib::bias_gelu", mutates_args=())
def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return nn.functional.gelu(x + bias, approximate="tanh")


@bias_gelu.register_fake
def _(x, bias):
    return torch.empty_like(x)


class FusedMLP(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=False)
        self.up_bias = nn.Parameter(torch.randn(hidden))
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(bias_gelu(self.up(x), self.up_bias))


model = FusedMLP().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails in step 3/3


if __name__ == "__main__":
    main()
