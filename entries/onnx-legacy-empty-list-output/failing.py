"""The legacy ONNX exporter fails on a model output that holds an empty list.

A vision encoder returns its final features and a list of intermediate features taken
from the layers named in its config, the way Qwen3-VL returns "deepstack" features. When
no layer is named, the list is empty. The TorchScript-based exporter (`dynamo=False`)
traces the model, then fails while giving the ONNX graph's outputs their shapes, with
a C++ message that names neither the output nor the list:
`RuntimeError: ArrayRef: invalid index Index = 1; Length = 1`.
"""
import io

import torch
from torch import nn


class TappedEncoder(nn.Module):
    """A stack of layers that also returns the outputs of the layers listed in `taps`."""

    def __init__(self, dim: int = 16, depth: int = 2, taps: tuple[int, ...] = ()):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.taps = taps

    def forward(self, patches):
        tapped = []
        for index, layer in enumerate(self.layers):
            patches = layer(patches)
            if index in self.taps:
                tapped.append(patches)
        return patches, tapped  # `tapped` is [] when no layer is tapped


model = TappedEncoder().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, input_names=["patches"])


if __name__ == "__main__":
    main()
