"""Trace the model without its torch.compile wrappers.

`torch.compile(module)` returns an `OptimizedModule` that keeps the original module as
`_orig_mod`. Replacing each wrapper by the module it wraps, in a copy of the model, gives
the same computation with nothing for Dynamo to do; the copy traces, and the traced
module matches eager. The model itself keeps its compiled block for training or serving.
"""
import copy

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.lin(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = torch.compile(Block())  # an OptimizedModule wrapping Block

    def forward(self, x):
        return self.block(x) * 2


def without_compile(module: nn.Module) -> nn.Module:
    """A copy of `module` in which every torch.compile wrapper is replaced by what it wraps."""
    module = copy.deepcopy(module)
    if isinstance(module, torch._dynamo.eval_frame.OptimizedModule):
        return without_compile(module._orig_mod)
    for parent in list(module.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, torch._dynamo.eval_frame.OptimizedModule):
                setattr(parent, name, child._orig_mod)
    return module


model = Model().eval()
example_args = (torch.randn(2, 8),)


def main():
    traced = torch.jit.trace(without_compile(model), example_args)
    x = torch.randn(5, 8)
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x))
    print("ok: traced the model without its torch.compile wrapper; the trace matches eager")


if __name__ == "__main__":
    main()
