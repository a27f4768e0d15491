"""A Python comparison on a value read out of a tensor cannot be decided during export.

`length.item()` turns a tensor into a Python int whose value is unknown while
tracing (an unbacked symbol, u0). The model then compares it, `if k > 2:`, so
non-strict export would have to guard on `u0 > 2` and fails.
"""
import torch
from torch import nn


class LengthAwarePool(nn.Module):
    """Mean-pools the valid tokens, dropping BOS/EOS when the sequence is long enough."""

    def __init__(self, dim: int = 8, out_dim: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, tokens, length):
        # tokens: (max_len, dim); length: 0-d int tensor with the number of valid tokens
        k = length.item()
        if k > 2:  # guard on a data-dependent value
            pooled = tokens[1 : k - 1].mean(dim=0)
        else:
            pooled = tokens[:k].mean(dim=0)
        return self.proj(pooled)


model = LengthAwarePool().eval()
example_args = (torch.randn(6, 8), torch.tensor(5))


def main():
    # fails: export cannot decide `u0 > 2` for the value read by .item()
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
