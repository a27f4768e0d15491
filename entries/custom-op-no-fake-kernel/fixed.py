"""Give each custom operator a fake kernel: a function of shapes, not values.

`register_fake` adds it to an op made with `torch.library.custom_op`; for an op defined
with `torch.library.Library` (or in C++), `torch.library.register_fake("ns::name")` does
the same. Both fake kernels return an empty tensor of the output's shape and dtype and
never read the input's data. With them, strict and non-strict export keep each operator
as one node, and the exported program matches eager.
"""
import torch
from torch import nn


@torch.library.custom_op("tinylib::swish", mutates_args=())
def swish(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


@swish.register_fake
def _(x):
    return torch.empty_like(x)


lib = torch.library.Library("tinylib", "FRAGMENT")
lib.define("softclip(Tensor x, float limit) -> Tensor")


def softclip_cpu(x, limit):
    return limit * torch.tanh(x / limit)


lib.impl("softclip", softclip_cpu, "CPU")


@torch.library.register_fake("tinylib::softclip")
def _(x, limit):
    return torch.empty_like(x)


class Gated(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.up = nn.Linear(dim, 32)
        self.down = nn.Linear(32, dim)

    def forward(self, x):
        return torch.ops.tinylib.softclip(self.down(swish(self.up(x))), 3.0)


model = Gated().eval()
example_args = (torch.randn(2, 16),)


def main():
    fresh = (torch.randn(2, 16),)
    for strict in (False, True):
        program = torch.export.export(model, example_args, strict=strict)
        targets = {str(n.target) for n in program.graph.nodes if n.op == "call_function"}
        assert {"tinylib.swish.default", "tinylib.softclip.default"} <= targets, targets
        with torch.no_grad():
            torch.testing.assert_close(program.module()(*fresh), model(*fresh))
    print("ok: with fake kernels both custom operators export, strict and non-strict, and match eager")


if __name__ == "__main__":
    main()
