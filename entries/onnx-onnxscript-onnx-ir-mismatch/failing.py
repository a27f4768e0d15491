"""The dynamo ONNX exporter of torch 2.7 to 2.9 breaks with onnx-ir 0.1.16 or newer.

`torch.onnx.export(..., dynamo=True)` ends by converting the ONNX model to the requested
opset with onnxscript's version converter. The onnxscript releases paired with torch 2.7,
2.8 and 2.9 (0.3.x to 0.5.x) refuse a model that still holds ONNX functions at that point,
and they rely on onnx-ir's inliner to remove every function first. onnx-ir 0.1.16 (February
2026) changed the inliner to drop only the functions it inlined, so the unused helper
function these torch releases leave in every model survives, and the export of any model,
even two Linear layers, fails. onnxscript allows any onnx-ir below 2, so a fresh
`pip install onnxscript` next to those torch releases gets the newest onnx-ir and this
failure.

The model below is ordinary on purpose: the cause is the installed package versions, not
the model. On torch 2.13 with onnxscript 0.7.2 the export works and the script says so.
"""
from importlib import metadata

import torch
from torch import nn


class TwoLayerMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


model = TwoLayerMLP().eval()
example_args = (torch.randn(3, 4),)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def main():
    # torch 2.9.1, onnxscript 0.5.4, onnx-ir 1.1.0: onnx_ir.passes.PassError: An error occurred
    # when running the '<onnxscript.version_converter._ConvertVersionPassRequiresInline ...>' pass
    torch.onnx.export(model, example_args, dynamo=True)
    print(
        f"export succeeded on torch {torch.__version__} with onnxscript {_version('onnxscript')} "
        f"and onnx-ir {_version('onnx-ir')}: the failure does not reproduce here"
    )


if __name__ == "__main__":
    main()
