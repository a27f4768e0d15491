"""A model quantized with torchao holds its weights as tensor subclasses, which older export cannot trace.

`torchao.quantization.quantize_` swaps each Linear weight for a quantized tensor subclass
(int8 data, scales, and the subclass's own dispatch). On torch 2.5 with torchao 0.6,
`torch.export.export` stops at the first such weight: AOT export did not support
traceable tensor subclasses yet, and it says so.
"""
import torch
from torch import nn


class FeedForward(nn.Module):
    """A transformer block's MLP: the layers weight-only quantization is meant for."""

    def __init__(self, dim: int = 64, hidden: int = 256):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


def int8_weights(model: nn.Module) -> nn.Module:
    from torchao.quantization import quantize_
    try:
        from torchao.quantization import Int8WeightOnlyConfig as int8_weight_only  # torchao 0.9 and later
    except ImportError:
        from torchao.quantization import int8_weight_only
    quantize_(model, int8_weight_only())
    return model


torch.manual_seed(0)
model = int8_weights(FeedForward().eval())
example_args = (torch.randn(4, 64),)


if __name__ == "__main__":
    torch.export.export(model, example_args)
