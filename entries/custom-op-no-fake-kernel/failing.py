"""torch.export meets a custom operator that has no fake kernel.

`tinylib::swish` is made with `torch.library.custom_op` and has only its real (eager)
kernel. torch.export traces with fake tensors, which have shapes and dtypes but no data,
so it needs a second function for the operator that says what shape and dtype the output
has; without one it stops with "There was no fake impl registered for
<CustomOpDef(tinylib::swish)>".
"""
import torch
from torch import nn


@torch.library.custom_op("tinylib::swish", mutates_args=())
def swish(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


class Gated(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.up = nn.Linear(dim, 32)
        self.down = nn.Linear(32, dim)

    def forward(self, x):
        return self.down(swish(self.up(x)))


model = Gated().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
