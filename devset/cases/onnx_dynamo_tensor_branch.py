"""expected: data-dependent-branch
torch.onnx.export(dynamo=True) of a gated MLP whose forward does `if x.mean() > 0` on a tensor; the ONNX wrapper error embeds the export failure.
"""
import torch
from torch import nn


class GatedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x):
        if x.mean() > 0:  # branch on a tensor value
            return self.a(x)
        return self.b(x)


torch.onnx.export(GatedMLP(), (torch.randn(2, 8),), dynamo=True)
