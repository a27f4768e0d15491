"""Register the custom op in the loading process before loading the program.

The serving process imports the op library (here: calls `register_mylib()`) before
`torch.export.load`. The node's target then resolves to the registered operator, the
program loads and runs, and it matches eager. The op is only looked up at load time,
so the same code, imported first, also makes the TorchScript archive and the
AOTInductor package of the variants load.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn


def register_mylib():
    """The op library. In a real project: `import mylib`, or torch.ops.load_library("libmylib.so")."""

    @torch.library.custom_op("mylib::gelu_scale", mutates_args=())
    def gelu_scale(x: torch.Tensor, scale: float) -> torch.Tensor:
        return torch.nn.functional.gelu(x) * scale

    @gelu_scale.register_fake
    def _(x, scale):
        return torch.empty_like(x)


class FeedForward(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.ops.mylib.gelu_scale(self.up(x), 0.5))


torch.manual_seed(0)  # the exporting and the loading process build the same weights
model = FeedForward().eval()  # calling it needs register_mylib() first
example_args = (torch.randn(2, 6, 16),)


def export_and_save(path: str) -> None:
    """The exporting process: it has the op library, so export and save succeed."""
    register_mylib()
    torch.export.save(torch.export.export(model, example_args), path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "feed_forward.pt2")
        subprocess.run([sys.executable, __file__, "--save", path], check=True)
        register_mylib()  # the fix: import the op library before loading
        program = torch.export.load(path)
        x = torch.randn(2, 6, 16)
        with torch.no_grad():
            torch.testing.assert_close(program.module()(x), model(x))
    print("ok: with mylib imported first the .pt2 loads in a fresh process and matches eager")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
