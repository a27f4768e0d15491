"""A quantized tensor (torch.quantize_per_tensor) held by the model cannot be faked.

Export replaces every tensor with a fake one, and fake tensors have no quantized
dtypes (`torch.qint8`, `torch.quint8`), so a quantized tensor stored as a buffer (or
passed as an input) stops the export before tracing starts.
"""
import torch
from torch import nn


class Int8Bias(nn.Module):
    def __init__(self):
        super().__init__()
        bias = torch.randn(16)
        self.register_buffer("qbias", torch.quantize_per_tensor(bias, 0.05, 0, torch.qint8))

    def forward(self, x):
        return x + self.qbias.dequantize()


torch.manual_seed(0)
model = Int8Bias().eval()
example_args = (torch.randn(4, 16),)


def main():
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
