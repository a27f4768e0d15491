"""Some operators have no translation in the legacy ONNX exporter at any opset.

The model computes the log-probability of a standard normal's upper tail in a
numerically stable way with `torch.special.erfcx` (the scaled complementary error
function). The TorchScript-based exporter has no symbolic for `aten::special_erfcx`, so
even its default (newest) opset fails.
"""
import io
import math

import torch
from torch import nn


class GaussianLogSurvival(nn.Module):
    def forward(self, x):
        # log P(Z > x) = log(erfcx(x / sqrt(2)) / 2) - x^2 / 2, stable for large x
        return torch.log(torch.special.erfcx(x / math.sqrt(2.0)) / 2) - x * x / 2


model = GaussianLogSurvival().eval()
example_args = (torch.linspace(-3.0, 12.0, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails at every opset


if __name__ == "__main__":
    main()
