"""Register a symbolic for the custom operator, then export it with the legacy exporter.

`torch.onnx.register_custom_op_symbolic("tinylib::scaled_gelu", fn, opset)` tells the
TorchScript-based exporter how to write the op as ONNX nodes; `fn` builds them with
`g.op(...)`, here GELU's erf form times the scale. The exported model matches eager in
onnxruntime.
"""
import io
import math

import onnxruntime as ort
import torch
from torch import nn
from torch.onnx import symbolic_helper


@torch.library.custom_op("tinylib::scaled_gelu", mutates_args=())
def scaled_gelu(x: torch.Tensor, scale: float) -> torch.Tensor:
    return nn.functional.gelu(x) * scale


@scaled_gelu.register_fake
def _(x, scale):
    return torch.empty_like(x)


@symbolic_helper.parse_args("v", "f")
def scaled_gelu_symbolic(g, x, scale):
    """scale * 0.5 * x * (1 + erf(x / sqrt(2))), in standard ONNX operators."""
    def const(value):
        return g.op("Constant", value_t=torch.tensor(value, dtype=torch.float32))

    erf = g.op("Erf", g.op("Div", x, const(math.sqrt(2.0))))
    gelu = g.op("Mul", g.op("Mul", x, const(0.5)), g.op("Add", erf, const(1.0)))
    return g.op("Mul", gelu, const(scale))


torch.onnx.register_custom_op_symbolic("tinylib::scaled_gelu", scaled_gelu_symbolic, 17)


class Block(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.up = nn.Linear(dim, 32)
        self.down = nn.Linear(32, dim)

    def forward(self, x):
        return self.down(scaled_gelu(self.up(x), 1.5))


model = Block().eval()
example_args = (torch.randn(2, 16),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, opset_version=17)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args), rtol=1e-4, atol=1e-5)
    print("ok: with a registered symbolic the custom operator exports through the legacy exporter and matches eager")


if __name__ == "__main__":
    main()
