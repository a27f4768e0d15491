"""A tensor default of forward becomes an input of the legacy exporter's ONNX graph.

ExportDB's optional_input pattern: `forward(self, x, y=<a tensor>)`, exported with only
`x`. The legacy exporter fills `y` with its default and traces it as an input.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class AddOffset(nn.Module):
    def forward(self, x, offset=torch.ones(2, 3)):
        return x + offset


model = AddOffset().eval()
example_args = (torch.randn(2, 3),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, path, dynamo=False, input_names=["x"])
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        session.run(None, {"x": example_args[0].numpy()})


if __name__ == "__main__":
    main()
