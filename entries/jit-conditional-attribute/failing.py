"""TorchScript compiles every branch of forward, so an attribute it uses must exist even when the branch is off.

The model is a residual conv block that creates a 1x1 projection shortcut only when the
channel count changes. With equal channels `self.shortcut` is never assigned, and
compiling `if self.has_shortcut: ... self.shortcut(x)` fails although the branch would
never run.
"""
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, in_ch: int, out_ch: int):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(),
            nn.Conv2d(out_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch),
        )
        self.has_shortcut = in_ch != out_ch
        if self.has_shortcut:
            self.shortcut = nn.Conv2d(in_ch, out_ch, 1)

    def forward(self, x):
        identity = x
        if self.has_shortcut:
            identity = self.shortcut(x)
        return torch.relu(self.body(x) + identity)


model = ResidualBlock(8, 8).eval()  # same channels: no shortcut attribute
example_args = (torch.randn(1, 8, 16, 16),)


def main():
    torch.jit.script(model)  # fails: Module 'ResidualBlock' has no attribute 'shortcut'


if __name__ == "__main__":
    main()
