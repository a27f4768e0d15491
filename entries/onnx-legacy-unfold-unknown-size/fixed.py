"""Export with the dynamo-based exporter, which translates unfold without a static size.

`torch.onnx.export(..., dynamo=True)` handles the padded `unfold` with static shapes and
with a dynamic signal length; both match eager in onnxruntime.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class OverlappingWindows(nn.Module):
    def __init__(self, channels: int = 4, hop: int = 4, pad: int = 2):
        super().__init__()
        self.hop, self.pad = hop, pad
        self.mix = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        x = F.pad(self.mix(x), (self.pad, self.pad))
        windows = x.unfold(2, self.hop + 2 * self.pad, self.hop)
        return windows.mean(-1)


model = OverlappingWindows().eval()
example_args = (torch.randn(2, 4, 16),)
dynamic_shapes = {"x": {2: Dim("length", min=8, max=4096)}}


def main():
    program = torch.onnx.export(model, example_args, dynamic_shapes=dynamic_shapes, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for length in (16, 28):
            x = torch.randn(2, 4, length)
            (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
            with torch.no_grad():
                torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print("ok: the dynamo-based exporter translates the padded unfold; matches eager for lengths 16 and 28")


if __name__ == "__main__":
    main()
