"""The same missing op in a TorchScript archive: torch.jit.load reports an unknown builtin op.

The exporting process registers `mylib::gelu_scale`, scripts the block and saves it.
A fresh process that loads the archive without the op library cannot compile the
archive's code, which calls `ops.mylib.gelu_scale`, and stops with `Unknown builtin
op: mylib::gelu_scale`. C++ (`torch::jit::load`) fails the same way when the library
that registers the op is not linked; `torchvision::nms` is the classic case.
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
    """The exporting process: it has the op library, so scripting and saving succeed."""
    register_mylib()
    torch.jit.script(model).save(path)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "feed_forward.pt")
        subprocess.run([sys.executable, __file__, "--save", path], check=True)
        # This process, like a serving process, never imported the op library.
        scripted = torch.jit.load(path)  # fails: mylib::gelu_scale is not registered here
        scripted(*example_args)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
