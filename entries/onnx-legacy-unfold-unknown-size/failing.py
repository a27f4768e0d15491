"""The TorchScript-based ONNX exporter needs the static size of the dimension Tensor.unfold slides over.

The model cuts a padded signal into overlapping windows, as UnivNet's location-variable
convolution does: `F.pad(x, (pad, pad)).unfold(2, hop + 2 * pad, hop)`. The legacy
exporter expands `unfold` into one slice per window, so it must know the length of that
dimension; after the `Pad` node it does not, and it stops with `Unsupported: ONNX export
of operator Unfold, input size not accessible`.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class OverlappingWindows(nn.Module):
    def __init__(self, channels: int = 4, hop: int = 4, pad: int = 2):
        super().__init__()
        self.hop, self.pad = hop, pad
        self.mix = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        x = F.pad(self.mix(x), (self.pad, self.pad))
        windows = x.unfold(2, self.hop + 2 * self.pad, self.hop)  # (batch, channels, n, window)
        return windows.mean(-1)


model = OverlappingWindows().eval()
example_args = (torch.randn(2, 4, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
