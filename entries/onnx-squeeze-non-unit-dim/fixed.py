"""Squeeze only an axis that is 1: the ONNX file then loads and matches eager.

The squeeze in `failing.py` never removed anything, so dropping it keeps the output.
Where the axis is 1 for some inputs and not for others, test the size first: the test
runs while the exporter traces, with the example's size, and only the branch taken is
recorded.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class MaskDownsample(nn.Module):
    def __init__(self, rate: int = 4):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=rate, stride=rate)

    def forward(self, mask):
        batch, chars = mask.shape
        pooled = self.pool(mask.reshape(batch, 1, chars).float())
        return pooled.squeeze(-1) if pooled.shape[-1] == 1 else pooled


model = MaskDownsample().eval()
example_args = (torch.ones(2, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, dynamo=True).save(path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args))
    print("ok: the ONNX model squeezes nothing, loads in onnxruntime and matches eager")


if __name__ == "__main__":
    main()
