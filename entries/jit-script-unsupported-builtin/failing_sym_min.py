"""torch.sym_min, written for torch.export, is not an operator TorchScript knows.

Code made export-friendly with `torch.sym_min` / `torch.sym_max` fails when the same
module is scripted: the compiler looks the function up among its builtin operators and
finds no `aten::sym_min`.
"""
import torch
from torch import nn


class WindowedEncoder(nn.Module):
    def __init__(self, dim: int = 8, max_len: int = 100):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.max_len = max_len

    def forward(self, x):  # (batch, time, dim)
        length = torch.sym_min(x.size(1), self.max_len)
        return self.proj(x[:, :length]).mean(dim=1)


model = WindowedEncoder().eval()
example_args = (torch.randn(2, 12, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
