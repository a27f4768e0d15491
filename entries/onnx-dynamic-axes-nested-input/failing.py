"""`dynamic_axes` names flat tensors; the dynamo-based ONNX exporter cannot place one name on a list.

A detector's head takes its multi-scale features as one list argument. The export call
written for the legacy exporter names that argument once, as `feats`, in `input_names`
and `dynamic_axes`. Since torch 2.9 `torch.onnx.export` uses the dynamo-based exporter by
default, and that exporter turns `dynamic_axes` into `torch.export` `dynamic_shapes`: one
entry per named input, placed on the flattened inputs (two feature maps and the sizes,
three tensors). Two names for three tensors do not fit, and the conversion fails
before the model is traced: `Failed to convert 'dynamic_axes' to 'dynamic_shapes'`.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class MultiScaleHead(nn.Module):
    """Pools every feature map of the pyramid and scales the result by each image's size."""

    def __init__(self, channels: int = 8):
        super().__init__()
        self.score = nn.Linear(channels, 1)

    def forward(self, feats, sizes):
        pooled = sum(f.mean(dim=(2, 3)) for f in feats)
        return self.score(pooled) * sizes[:, :1]


model = MultiScaleHead().eval()
example_args = ([torch.randn(2, 8, 16, 16), torch.randn(2, 8, 8, 8)], torch.ones(2, 2))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "head.onnx"), dynamo=True,
                          input_names=["feats", "sizes"], output_names=["scores"],
                          dynamic_axes={"feats": {0: "batch"}, "sizes": {0: "batch"}})  # fails


if __name__ == "__main__":
    main()
