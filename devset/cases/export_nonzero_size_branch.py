"""expected: data-dependent-guard
torch.export (non-strict) of a detector head that counts boxes with torch.nonzero and branches on that count in Python.
"""
import torch
from torch import nn


class BoxFilter(nn.Module):
    def forward(self, scores, boxes):
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        if keep.numel() == 0:
            return boxes[:1] * 0
        return boxes[keep]


torch.export.export(BoxFilter(), (torch.rand(10), torch.rand(10, 4)))
