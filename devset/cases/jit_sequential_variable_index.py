"""expected: jit-modulelist-variable-index
torch.jit.script of a model that picks a stage of an nn.Sequential with a loop variable (self.stages[i]).
"""
import torch
from torch import nn


class MultiExit(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8))

    def forward(self, x, depth: int):
        for i in range(depth):
            x = self.stages[i](x)
        return x


torch.jit.script(MultiExit())
