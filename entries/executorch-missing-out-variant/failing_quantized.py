"""Quantize/dequantize ops whose out variants were never registered stop to_executorch.

The model simulates int8 activations with the `quantized_decomposed` operators that
PT2E quantization inserts. Their out variants live in ExecuTorch's quantized kernel
library, which registers them with torch only when `executorch.kernels.quantized` is
imported; this script never imports it, so the out-variant pass finds none.
"""
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  registers quantized_decomposed ops
from torch import nn


class FakeQuantLinear(nn.Module):
    """Round the input to int8 and back, then apply a linear layer."""

    def __init__(self, dim: int = 16, scale: float = 0.05):
        super().__init__()
        self.scale = scale
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        ops = torch.ops.quantized_decomposed
        q = ops.quantize_per_tensor(x, self.scale, 0, -128, 127, torch.int8)
        return self.linear(ops.dequantize_per_tensor(q, self.scale, 0, -128, 127, torch.int8))


model = FakeQuantLinear().eval()
example_args = (torch.randn(2, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args)
    edge = to_edge_transform_and_lower(exported)
    edge.to_executorch()  # fails: no out variants for the quantized_decomposed ops


if __name__ == "__main__":
    main()
