"""expected: strict-untraceable-call
torch.export.export(strict=True) of a model that times its own forward with time.perf_counter(), a builtin TorchDynamo cannot trace.
"""
import time

import torch
from torch import nn


class TimedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))
        self.last_ms = 0.0

    def forward(self, x):
        start = time.perf_counter()
        out = self.enc(x)
        self.last_ms = (time.perf_counter() - start) * 1000
        return out


torch.export.export(TimedEncoder().eval(), (torch.randn(2, 16),), strict=True)
