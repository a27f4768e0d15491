"""A traced model that calls a @torch.jit.script helper, exported by torch 1.2 or 1.3.

The legacy exporter traced `forward` and inlined the scripted helper's graph. On those
releases the exported graph's input lost its type on the way (`%data : Byte(*, *, *, *)`
in the trace, no type in the ONNX file), and onnxruntime refused the file: `Model input
(data) does not have type information`. The export itself raised nothing.
This script needs torch 1.2 or 1.3, which do not install on Python 3.11, so it was not run
here; on torch 2.13 the same code exports a model that loads.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


@torch.jit.script
def center_slice(x, top: int, left: int, bottom: int, right: int):
    return x[:, :, top:bottom, left:right]


class CenterCrop(nn.Module):
    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def forward(self, x):
        height, width = x.shape[2], x.shape[3]
        top, left = (height - self.size) // 2, (width - self.size) // 2
        return center_slice(x, top, left, top + self.size, left + self.size)


def main():
    image = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "crop.onnx"
        torch.onnx.export(CenterCrop(4), (image,), str(path), input_names=["data"])
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        print(session.run(None, {"data": image.numpy()})[0].shape)


if __name__ == "__main__":
    main()
