"""A float16 model's torch.arange becomes an ONNX Range over float16, which onnxruntime rejects.

Detection heads build their anchor grid with `torch.arange(w, dtype=feats.dtype)`, so a
model exported in half precision asks for a float16 `arange`. With a dynamic width the
TorchScript-based exporter emits an ONNX `Range` with float16 inputs, and onnxruntime
refuses the model at load: `Type 'tensor(float16)' of input parameter ... of operator
(Range) ... is invalid`.
"""
import io

import onnxruntime
import torch
from torch import nn


class AnchorPoints(nn.Module):
    """Adds each column's centre coordinate to a feature map, as anchor generation does."""

    def forward(self, feats):
        width = feats.shape[-1]
        centres = torch.arange(width, dtype=feats.dtype) + 0.5
        return feats + centres


model = AnchorPoints().eval()
example_args = (torch.randn(1, 4, 8, 8).half(),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["feats"],
                      dynamic_axes={"feats": {2: "height", 3: "width"}})
    onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])  # fails to load


if __name__ == "__main__":
    main()
