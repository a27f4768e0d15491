"""expected: jit-conditional-attribute
torch.jit.script of a residual block whose projection submodule is created only when the channel counts differ, but forward names it under an `if`.
"""
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.needs_proj = c_in != c_out
        if self.needs_proj:
            self.proj = nn.Conv2d(c_in, c_out, 1)
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)

    def forward(self, x):
        shortcut = x
        if self.needs_proj:
            shortcut = self.proj(x)
        return torch.relu(self.conv(x) + shortcut)


torch.jit.script(ResidualBlock(8, 8))
