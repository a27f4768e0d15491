"""Unwrap the tensor subclasses into plain parameters and parametrizations before exporting.

`torchao.utils.unwrap_tensor_subclass` replaces each quantized weight by its plain tensor
parts (int8 data, scales) and a parametrization that rebuilds it in `forward`, so export
sees ordinary tensors and traces the quantized arithmetic as graph operations. The
exported program computes what the quantized model computes.
"""
import torch
from torch import nn


class FeedForward(nn.Module):
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


def main():
    from torchao.utils import unwrap_tensor_subclass

    with torch.no_grad():
        expected = model(*example_args)
    exported = torch.export.export(unwrap_tensor_subclass(model), example_args)
    x = torch.randn(4, 64)
    with torch.no_grad():
        torch.testing.assert_close(exported.module()(*example_args), expected)
        torch.testing.assert_close(exported.module()(x), model(x))
    print("ok: the int8 weight-only model exports after unwrap_tensor_subclass and matches the quantized eager model")


if __name__ == "__main__":
    main()
