"""Both ONNX exporters write an int16 MatMul, which ONNX does not define and onnxruntime rejects.

A fixed-point filter bank multiplies int16 audio samples by an int16 coefficient matrix.
PyTorch multiplies int16 matrices directly; ONNX's MatMul accepts float types, int32,
int64, uint32 and uint64, but no 8- or 16-bit integers. The dynamo-based exporter
(`dynamo=True`) copies the int16 operands onto MatMul as they are (the TorchScript-based
one does the same), and onnxruntime refuses the model at load.
"""
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn


class FixedPointFilterBank(nn.Module):
    def __init__(self, taps: int = 8, bands: int = 4):
        super().__init__()
        generator = torch.Generator().manual_seed(0)
        self.register_buffer("coeffs", torch.randint(-4, 5, (taps, bands), dtype=torch.int16, generator=generator))

    def forward(self, frames):  # (frames, taps) int16 samples
        return frames @ self.coeffs  # int16 MatMul


model = FixedPointFilterBank().eval()
example_args = (torch.randint(-100, 100, (3, 8), dtype=torch.int16),)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])  # fails to load


if __name__ == "__main__":
    main()
