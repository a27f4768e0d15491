"""Give the exporter a translation for the custom operator.

`custom_translation_table` maps the operator to an onnxscript function written with
standard ONNX operators, so the exporter can emit it; the tanh-approximated GELU is
spelled out with Mul, Add and Tanh. The ONNX model matches eager in onnxruntime.
"""
import math
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from onnxscript import opset18 as op
from torch import nn


@torch.library.custom_op("tinylib::bias_gelu", mutates_args=())
def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return nn.functional.gelu(x + bias, approximate="tanh")


@bias_gelu.register_fake
def _(x, bias):
    return torch.empty_like(x)


def onnx_bias_gelu(x, bias):
    """The same computation in ONNX operators: 0.5*y*(1 + tanh(sqrt(2/pi)*(y + 0.044715*y^3)))."""
    y = op.Add(x, bias)
    cubic = op.Mul(op.Constant(value_float=0.044715), op.Mul(op.Mul(y, y), y))
    inner = op.Mul(op.Constant(value_float=math.sqrt(2 / math.pi)), op.Add(y, cubic))
    return op.Mul(op.Mul(op.Constant(value_float=0.5), y), op.Add(op.Constant(value_float=1.0), op.Tanh(inner)))


class FusedMLP(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias=False)
        self.up_bias = nn.Parameter(torch.randn(hidden))
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(bias_gelu(self.up(x), self.up_bias))


model = FusedMLP().eval()
example_args = (torch.randn(2, 16),)


def main():
    program = torch.onnx.export(
        model, example_args, dynamo=True,
        custom_translation_table={torch.ops.tinylib.bias_gelu.default: onnx_bias_gelu},
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args), rtol=1e-4, atol=1e-5)
    print("ok: with a custom translation the custom operator exports and matches eager in onnxruntime")


if __name__ == "__main__":
    main()
