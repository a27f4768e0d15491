"""The same op written without a domain: onnxruntime looks for it among ONNX's own ops.

A symbolic() that gives a bare name, `g.op("FusedSiLU", x)`, puts the node in the
default ONNX domain. The exporter accepts any name there; onnxruntime then looks the
op up in the ONNX operator set of the file's opset, does not find it, and calls the
model invalid.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch

import failing
from failing import Stem


def bare_symbolic(g, x):
    return g.op("FusedSiLU", x)


failing.FusedSiLU.symbolic = staticmethod(bare_symbolic)
model = Stem().eval()
example_args = (torch.randn(1, 3, 64, 64),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stem.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False)
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


if __name__ == "__main__":
    main()
