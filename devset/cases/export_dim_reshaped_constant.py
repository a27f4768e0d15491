"""expected: dynamic-dim-specialized
torch.export with a named Dim on the sequence axis of a model that reshapes that axis into fixed 4x4 patches, forcing it to a constant.
"""
import torch
from torch import nn
from torch.export import Dim


class PatchMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(16, 16)

    def forward(self, x):  # x: (batch, seq, 16)
        b = x.shape[0]
        grid = x.reshape(b, 4, 4, 16)  # assumes seq == 16
        return self.mix(grid.mean(dim=(1, 2)))


seq = Dim("seq", min=2, max=64)
torch.export.export(PatchMixer(), (torch.randn(2, 16, 16),), dynamic_shapes={"x": {1: seq}})
