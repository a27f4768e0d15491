"""expected: data-dependent-guard
torch.export (non-strict) of a model that calls .tolist() on a lengths tensor and loops/branches on the Python ints.
"""
import torch
from torch import nn


class LengthPool(nn.Module):
    def forward(self, x, lengths):
        outs = []
        for i, n in enumerate(lengths.tolist()):
            if n > 0:
                outs.append(x[i, :n].mean(dim=0))
            else:
                outs.append(x.new_zeros(x.shape[-1]))
        return torch.stack(outs)


torch.export.export(LengthPool(), (torch.randn(3, 5, 4), torch.tensor([2, 5, 0])))
