"""The TorchScript-based ONNX exporter meets a custom operator it has no symbolic for.

`tinylib::scaled_gelu` is a `torch.library.custom_op` (with a fake kernel, so
torch.export would take it). `torch.onnx.export(..., dynamo=False)` traces the model with
TorchScript, where the op stays one node, `tinylib::scaled_gelu`, and then looks up a
symbolic function that writes it as ONNX nodes. There is none for the `tinylib`
namespace, and the export stops with "ONNX export failed on an operator with
unrecognized namespace tinylib::scaled_gelu".
"""
import io

import torch
from torch import nn


@torch.library.custom_op("tinylib::scaled_gelu", mutates_args=())
def scaled_gelu(x: torch.Tensor, scale: float) -> torch.Tensor:
    return nn.functional.gelu(x) * scale


@scaled_gelu.register_fake
def _(x, scale):
    return torch.empty_like(x)


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
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)


if __name__ == "__main__":
    main()
