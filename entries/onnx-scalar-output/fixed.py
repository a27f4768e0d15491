"""Return the count as a tensor, so that it is a real graph output.

`torch.tensor(n)` makes the number an output the ONNX exporter can name. Exported with a
dynamic signal length, the count is computed from the input's shape at run time, so it
stays right for other lengths.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn
from torch.export import Dim


class Framer(nn.Module):
    def __init__(self, hop: int = 4):
        super().__init__()
        self.hop = hop

    def forward(self, x):
        frames = x.unfold(-1, self.hop, self.hop)
        return frames, torch.tensor(x.shape[-1] // self.hop)


model = Framer().eval()
example_args = (torch.randn(2, 16),)
dynamic_shapes = {"x": {1: Dim("samples", min=8, max=4096)}}


def main():
    program = torch.onnx.export(model, example_args, dynamic_shapes=dynamic_shapes, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for length in (16, 40):
            x = torch.randn(2, length)
            frames, count = session.run(None, {session.get_inputs()[0].name: x.numpy()})
            want_frames, want_count = model(x)
            torch.testing.assert_close(torch.from_numpy(frames), want_frames)
            torch.testing.assert_close(torch.from_numpy(count), want_count)
    print("ok: the count is a tensor output; the ONNX program matches eager for 16 and 40 samples")


if __name__ == "__main__":
    main()
