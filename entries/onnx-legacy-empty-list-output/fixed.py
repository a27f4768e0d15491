"""Return the intermediate features as a tuple, which may be empty.

An empty tuple adds no graph output and the legacy exporter accepts it; with taps the
tuple's tensors become outputs like any other. The script exports the encoder without
taps and with two, and compares onnxruntime with eager for both.
"""
import io

import onnxruntime
import torch
from torch import nn


class TappedEncoder(nn.Module):
    """A stack of layers that also returns the outputs of the layers listed in `taps`."""

    def __init__(self, dim: int = 16, depth: int = 2, taps: tuple[int, ...] = ()):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.taps = taps

    def forward(self, patches):
        tapped = []
        for index, layer in enumerate(self.layers):
            patches = layer(patches)
            if index in self.taps:
                tapped.append(patches)
        return patches, tuple(tapped)  # an empty tuple is no output; an empty list breaks the export


model = TappedEncoder().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    tapped_model = TappedEncoder(taps=(0, 1)).eval()
    for encoder in (model, tapped_model):
        buffer = io.BytesIO()
        torch.onnx.export(encoder, example_args, buffer, dynamo=False, input_names=["patches"])
        session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        got = session.run(None, {"patches": example_args[0].numpy()})
        with torch.no_grad():
            final, tapped = encoder(*example_args)
        expected = [final, *tapped]
        assert len(got) == len(expected), f"{len(got)} ONNX outputs for {len(expected)} tensors"
        for onnx_out, eager_out in zip(got, expected):
            torch.testing.assert_close(torch.from_numpy(onnx_out), eager_out)
    print("ok: without taps and with two, the legacy export matches eager in onnxruntime")


if __name__ == "__main__":
    main()
