"""expected: jit-static-length
torch.jit.script of a feature-pyramid head that zips an nn.ModuleList with a List[Tensor] argument of unknown length.
"""
from typing import List

import torch
from torch import nn


class PyramidHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList(nn.Conv2d(8, 2, 1) for _ in range(3))

    def forward(self, features: List[torch.Tensor]):
        outs = []
        for head, feat in zip(self.heads, features):
            outs.append(head(feat))
        return outs


torch.jit.script(PyramidHead())
