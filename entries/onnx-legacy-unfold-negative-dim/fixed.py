"""Give unfold a non-negative dimension, and the legacy export matches eager.

`signal.unfold(signal.dim() - 1, ...)` names the same axis as `-1`, and the legacy
exporter handles it correctly. The frames then agree with eager for the square case of
failing.py and for a signal whose frame count differs from the frame length, where the
swapped export would even have the wrong shape.
"""
import io

import onnxruntime
import torch
from torch import nn


class Framer(nn.Module):
    """Cuts a signal into frames and scales each frame by a learned window."""

    def __init__(self, frame: int = 4, hop: int = 4):
        super().__init__()
        self.frame, self.hop = frame, hop
        self.window = nn.Parameter(torch.hann_window(frame))

    def forward(self, signal):
        frames = signal.unfold(signal.dim() - 1, self.frame, self.hop)  # the fix: a positive dim
        return frames * self.window


model = Framer().eval()
example_args = (torch.arange(32.0).reshape(2, 16),)


def main():
    for signal in (example_args[0], torch.randn(3, 24)):  # 4 frames of 4; 6 frames of 4
        buffer = io.BytesIO()
        torch.onnx.export(model, (signal,), buffer, dynamo=False, input_names=["signal"])
        session = onnxruntime.InferenceSession(buffer.getvalue())
        (onnx_frames,) = session.run(None, {"signal": signal.numpy()})
        torch.testing.assert_close(torch.from_numpy(onnx_frames), model(signal).detach())
    print("ok: with a non-negative dim the legacy ONNX export of unfold matches eager (4x4 and 6x4 frames)")


if __name__ == "__main__":
    main()
