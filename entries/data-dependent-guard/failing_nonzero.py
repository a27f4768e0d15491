"""Branching on the size of a nonzero() result is a guard on data, like .item().

The number of rows `nonzero()` returns depends on the values, so it is an
unbacked symbol (u0) during tracing and `if hits.shape[0] > 2:` cannot be decided.
"""
import torch
from torch import nn


class HitCounter(nn.Module):
    """Boosts the output when more than two scores pass the threshold."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        scores = self.score(x).squeeze(-1)
        hits = (scores > 0).nonzero()
        if hits.shape[0] > 2:  # guard on a data-dependent size
            return scores * 2
        return scores


model = HitCounter().eval()
example_args = (torch.randn(6, 8),)


def main():
    # fails: the row count of nonzero() is unknown while tracing
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
