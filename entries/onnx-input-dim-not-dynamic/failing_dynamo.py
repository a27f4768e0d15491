"""The same with the default (torch.export-based) ONNX exporter and `dynamic_shapes`.

`dynamic_shapes` names `Dim`s for the batch only; every other dim of the example is
exported as a constant, and onnxruntime refuses another sequence length with the same
`Got invalid dimensions for input` error.
"""
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn
from torch.export import Dim


class MeanPool(nn.Module):
    """(batch, seq, features) -> (batch, features): works for any batch and any seq."""

    def forward(self, x):
        return x.mean(dim=1)


model = MeanPool().eval()
example_args = (torch.randn(2, 16, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mean_pool.onnx"
        program = torch.onnx.export(model, example_args, input_names=["x"], output_names=["y"],
                                    dynamic_shapes={"x": {0: Dim("batch")}},  # seq is left static
                                    dynamo=True)
        program.save(str(path))
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        session.run(None, {"x": torch.randn(3, 16, 8).numpy()})  # another batch: fine
        session.run(None, {"x": torch.randn(3, 20, 8).numpy()})  # another seq: INVALID_ARGUMENT


if __name__ == "__main__":
    main()
