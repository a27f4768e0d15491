"""A saved program that calls a custom op cannot be loaded where the op is not registered.

The feed-forward block uses `mylib::gelu_scale`, an operator defined in Python with
`torch.library.custom_op`. The exporting process registers it, exports and saves a
`.pt2`. The serving process, started fresh, loads the file without importing the op's
library first: `torch.export.load` cannot turn the node's target string
`torch.ops.mylib.gelu_scale.default` back into an operator and refuses the file.
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
        # This process, like a serving process, never imported the op library.
        program = torch.export.load(path)  # fails: mylib::gelu_scale is not registered here
        program.module()(*example_args)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--save"]:
        export_and_save(sys.argv[2])
    else:
        main()
