"""expected: data-dependent-guard
torch.export (non-strict) of a model that builds a view shape from x.max().item().
"""
import torch
from torch import nn


class Regroup(nn.Module):
    def forward(self, x, groups):
        g = int(groups.max().item())
        return x.view(g, -1).sum(dim=1)


torch.export.export(Regroup(), (torch.randn(12), torch.tensor([1, 3, 2])))
