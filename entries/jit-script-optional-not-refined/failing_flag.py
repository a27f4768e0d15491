"""The same error when the None test is kept in a variable: has_mask = mask is not None.

TorchScript narrows an Optional only inside an `if` (or `assert`, or a conditional
expression) whose condition is the `is not None` test itself. Storing the test in a
bool and branching on the bool loses that, so `mask` is still Optional in the branch.
"""
from typing import Optional

import torch
from torch import nn


class MaskedPooling(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        has_mask = mask is not None
        if has_mask:
            x = x * mask
        return self.proj(x).mean(dim=1)


model = MaskedPooling().eval()
example_args = (torch.randn(2, 10, 16), torch.ones(2, 10, 1))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
