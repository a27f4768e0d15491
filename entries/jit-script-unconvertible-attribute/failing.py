"""TorchScript cannot represent a module attribute of an arbitrary Python type, such as a config namespace.

The classifier keeps its hyper-parameters in an `argparse.Namespace`, as training
scripts often do, and reads `self.cfg.temperature` in `forward`. Scripting converts
every attribute that `forward` uses into a TorchScript value; a Namespace has no
TorchScript type, so the attribute is reported as missing.
"""
import argparse

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, cfg: argparse.Namespace):
        super().__init__()
        self.cfg = cfg
        self.head = nn.Linear(cfg.dim, cfg.classes)

    def forward(self, x):
        return torch.softmax(self.head(x) / self.cfg.temperature, dim=-1)


config = argparse.Namespace(dim=16, classes=4, temperature=2.0)
model = Classifier(config).eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
