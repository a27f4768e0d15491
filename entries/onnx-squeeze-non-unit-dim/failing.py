"""The dynamo ONNX exporter writes a Squeeze that onnxruntime refuses to load.

`torch.squeeze(x, dim)` on an axis whose size is not 1 returns `x` unchanged, so the
call can stay in a model's code without anyone noticing. CANINE pools its character
mask down to molecules and squeezes the last axis, which holds the molecules, not a 1.
`torch.onnx.export(dynamo=True)` translates the call into an ONNX `Squeeze` of that
axis all the same. The ONNX operator requires the axis to be 1, so the export succeeds
and onnxruntime's shape inference refuses the file when it loads it.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class MaskDownsample(nn.Module):
    """Max-pool a (batch, chars) attention mask to (batch, 1, molecules), as CANINE does."""

    def __init__(self, rate: int = 4):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=rate, stride=rate)

    def forward(self, mask):
        batch, chars = mask.shape
        pooled = self.pool(mask.reshape(batch, 1, chars).float())
        return torch.squeeze(pooled, dim=-1)  # the last axis holds chars / rate molecules: a no-op


model = MaskDownsample().eval()
example_args = (torch.ones(2, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, dynamo=True).save(path)
        # fails here: the export went through; onnxruntime checks the Squeeze when it loads
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args))


if __name__ == "__main__":
    main()
