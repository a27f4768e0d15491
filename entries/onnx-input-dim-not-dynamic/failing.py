"""An ONNX input dim that was not declared dynamic is fixed to the example's size.

The model pools over a sequence of any length. The legacy (TorchScript-based) exporter
is told that dim 0 of `x` is dynamic (`dynamic_axes={"x": {0: "batch"}}`) and nothing
about dim 1, so the ONNX file records the example's sequence length, 16, as the only
length it accepts. Export succeeds; onnxruntime then refuses a sequence of 20:
`INVALID_ARGUMENT : Got invalid dimensions for input: x for the following indices
index: 1 Got: 20 Expected: 16`.
"""
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn


class MeanPool(nn.Module):
    """(batch, seq, features) -> (batch, features): works for any batch and any seq."""

    def forward(self, x):
        return x.mean(dim=1)


model = MeanPool().eval()
example_args = (torch.randn(2, 16, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mean_pool.onnx"
        torch.onnx.export(model, example_args, str(path), input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},  # seq is left static
                          dynamo=False)
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        session.run(None, {"x": torch.randn(3, 16, 8).numpy()})  # another batch: fine
        session.run(None, {"x": torch.randn(3, 20, 8).numpy()})  # another seq: INVALID_ARGUMENT


if __name__ == "__main__":
    main()
