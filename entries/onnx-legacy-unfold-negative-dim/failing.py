"""The legacy ONNX exporter swaps unfold's two new axes when the dimension is negative.

A framing layer cuts a signal into frames with `x.unfold(-1, frame, hop)`: eager
returns (batch, frames, frame length). The TorchScript-based exporter
(`dynamo=False`) exports the same call as (batch, frame length, frames). Here there are
as many frames as samples per frame, so even the shape is right and onnxruntime
returns every frame transposed, with no error. The script compares and raises.
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
        frames = signal.unfold(-1, self.frame, self.hop)  # (batch, n_frames, frame)
        return frames * self.window


model = Framer().eval()
example_args = (torch.arange(32.0).reshape(2, 16),)  # four frames of four samples


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["signal"])
    session = onnxruntime.InferenceSession(buffer.getvalue())
    (onnx_frames,) = session.run(None, {"signal": example_args[0].numpy()})
    eager = model(*example_args).detach()
    onnx_frames = torch.from_numpy(onnx_frames)
    if not torch.allclose(onnx_frames, eager):
        # What onnxruntime computed: the frames with their two axes swapped, then windowed.
        swapped = example_args[0].unfold(-1, model.frame, model.hop).transpose(-1, -2) * model.window.detach()
        raise AssertionError(
            "legacy ONNX export of unfold(-1, ...) disagrees with eager: "
            f"eager's first frame is {eager[0, 0].tolist()}, onnxruntime's is {onnx_frames[0, 0].tolist()}; "
            f"it computed the frames with their two axes swapped: {torch.allclose(onnx_frames, swapped)}"
        )
    print("the legacy ONNX export agrees with eager")


if __name__ == "__main__":
    main()
