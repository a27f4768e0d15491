"""expected: export-non-module
torch.export.export called on a plain Python function instead of an nn.Module.
"""
import torch


def gelu_mlp(x, w1, w2):
    return torch.nn.functional.gelu(x @ w1) @ w2


torch.export.export(gelu_mlp, (torch.randn(2, 8), torch.randn(8, 16), torch.randn(16, 4)))
