"""Declare every dim that varies at run time: here the batch and the sequence length.

With a `Dim` for dim 1 as well, the ONNX input's shape is `[batch, seq, 8]`, and
onnxruntime runs any batch and any sequence length, matching eager. (For the legacy
exporter the same is `dynamic_axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch"}}`.)
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
                                    dynamic_shapes={"x": {0: Dim("batch"), 1: Dim("seq")}},
                                    dynamo=True)
        program.save(str(path))
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        print("ONNX input shape:", session.get_inputs()[0].shape)
        for shape in [(3, 16, 8), (3, 20, 8), (1, 5, 8)]:
            x = torch.randn(*shape)
            (got,) = session.run(None, {"x": x.numpy()})
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-5, atol=1e-6)
    print("ok: every batch and sequence length ran in onnxruntime and matched eager")


if __name__ == "__main__":
    main()
