"""expected: data-dependent-branch
torch.export.export(strict=True) of an attention pooling layer that skips masking with `if mask.any():` on a tensor.
"""
import torch
from torch import nn


class MaskedPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 1)

    def forward(self, x, mask):
        scores = self.score(x).squeeze(-1)
        if mask.any():  # Python branch on tensor data
            scores = scores.masked_fill(mask, float("-inf"))
        return (scores.softmax(-1).unsqueeze(-1) * x).sum(1)


torch.export.export(MaskedPool(), (torch.randn(2, 5, 8), torch.zeros(2, 5, dtype=torch.bool)), strict=True)
