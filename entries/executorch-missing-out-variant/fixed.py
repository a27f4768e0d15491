"""Decompose the custom op into Core ATen operators before lowering.

`run_decompositions` with an entry for `mylib.scaled_clamp.default` replaces each call
by the function given (here `clamp` and `mul`), operators that have out variants and
portable kernels. `to_executorch` succeeds, and the ExecuTorch runtime loads the
program, runs it and matches eager.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


@torch.library.custom_op("mylib::scaled_clamp", mutates_args=())
def scaled_clamp(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x.clamp(-1.0, 1.0) * scale


@scaled_clamp.register_fake
def _(x, scale):
    return torch.empty_like(x)


def scaled_clamp_decomposition(x, scale):
    """The op written with Core ATen operators, for lowering."""
    return x.clamp(-1.0, 1.0) * scale


class ClampedFeedForward(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.ops.mylib.scaled_clamp(self.up(x), 2.0))


model = ClampedFeedForward().eval()
example_args = (torch.randn(2, 6, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    exported = exported.run_decompositions({torch.ops.mylib.scaled_clamp.default: scaled_clamp_decomposition})
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(2, 6, 16)
        (got,) = method.execute([x])
    with torch.no_grad():
        torch.testing.assert_close(got, model(x))
    print("ok: with the custom op decomposed, the ExecuTorch program runs and matches eager")


if __name__ == "__main__":
    main()
