"""expected: data-dependent-guard
torch.onnx.export(dynamo=True) of a model that slices by a count read from torch.nonzero and branches on it; the ONNX wrapper error embeds the data-dependent guard.
"""
import torch
from torch import nn


class KeepPositive(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        if idx.shape[0] > 4:  # data-dependent size used in Python control flow
            return x * 2
        return x - 1


torch.onnx.export(KeepPositive(), (torch.randn(3, 4),), dynamo=True)
