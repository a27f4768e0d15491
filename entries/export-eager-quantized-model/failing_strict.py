"""Strict export of an eager-quantized model stops at the packed weights.

Dynamo reaches `torch.ops.quantized.linear_dynamic(x, packed_params, ...)` inside the
quantized Linear and cannot turn the packed-parameter object (a TorchScript class) into
a graph input, so strict export fails with a graph break.
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
model = torch.ao.quantization.quantize_dynamic(TinyClassifier().eval(), {nn.Linear}, dtype=torch.qint8)
example_args = (torch.randn(4, 16),)


def main():
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
