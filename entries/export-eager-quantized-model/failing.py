"""A model quantized with eager-mode quantization cannot be exported.

`torch.ao.quantization.quantize_dynamic` (and `convert` after `prepare`) swaps each
`nn.Linear` for a quantized module whose weights live in a packed-parameter object, a
TorchScript class (`LinearPackedParamsBase`), and whose forward calls a `quantized::`
kernel. torch.export traces with fake tensors and must fake that object too, which
these classes do not support. Quantize after export instead (PT2E), starting from the
float model.
"""
import torch
from torch import nn


class TinyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
# Eager dynamic quantization: int8 weights, activations quantized on the fly.
model = torch.ao.quantization.quantize_dynamic(TinyClassifier().eval(), {nn.Linear}, dtype=torch.qint8)
example_args = (torch.randn(4, 16),)


def main():
    torch.export.export(model, example_args)  # non-strict, the default


if __name__ == "__main__":
    main()
