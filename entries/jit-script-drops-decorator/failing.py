"""torch.jit.script compiles the undecorated forward: a functools.wraps decorator is dropped.

An embedding model L2-normalises its output with a decorator on `forward`. The
decorator uses `functools.wraps`, as well-behaved decorators do, which records the
original function in `__wrapped__`. TorchScript reads the source of `forward` through
`inspect`, which follows `__wrapped__` to the undecorated function, so the scripted
module returns raw, unnormalised embeddings. No warning; the script compares and raises.
"""
import functools

import torch
import torch.nn.functional as F
from torch import nn


def l2_normalized(forward):
    """Makes a module's output unit-length along the last dimension."""

    @functools.wraps(forward)
    def wrapper(self, *args, **kwargs):
        return F.normalize(forward(self, *args, **kwargs), dim=-1)

    return wrapper


class Embedder(nn.Module):
    def __init__(self, dim: int = 16, out: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, out)

    @l2_normalized
    def forward(self, x):
        return self.proj(x)


torch.manual_seed(0)
model = Embedder().eval()
example_args = (torch.randn(4, 16),)


def main():
    scripted = torch.jit.script(model)
    with torch.no_grad():
        eager, script_out = model(*example_args), scripted(*example_args)
    if not torch.allclose(eager, script_out):
        raise AssertionError(
            "scripted module disagrees with eager: the decorator on forward was dropped "
            f"(eager row norms {eager.norm(dim=-1).tolist()}, scripted {script_out.norm(dim=-1).tolist()})"
        )
    print("the scripted module agrees with eager")


if __name__ == "__main__":
    main()
