"""Export the crop with a plain Python helper, so the exporter traces it like the rest.

Without `@torch.jit.script` the helper is traced into the graph, and the exported input
keeps its type (uint8, four dimensions) on every release; onnxruntime loads the file and
matches eager. A newer torch (the reports met the bug on 1.2 and 1.3) also exports the
scripted version correctly.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


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
    model = CenterCrop(4)
    image = torch.randint(0, 256, (1, 3, 8, 8), dtype=torch.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "crop.onnx"
        torch.onnx.export(model, (image,), str(path), input_names=["data"], dynamo=False)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {"data": image.numpy()})
    torch.testing.assert_close(torch.from_numpy(got), model(image))
    print("ok: the exported input keeps its type; onnxruntime loads the model and matches eager")


if __name__ == "__main__":
    main()
