"""Computing the same result without a Python decision on the value exports cleanly.

The branch on `k > 2` becomes tensor arithmetic: the start and end of the pooled
window are chosen with torch.where, and a mask selects the tokens to average.
"""
import torch
from torch import nn


class LengthAwarePool(nn.Module):
    """Mean-pools the valid tokens, dropping BOS/EOS when the sequence is long enough."""

    def __init__(self, dim: int = 8, out_dim: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, tokens, length):
        long_enough = length > 2
        start = torch.where(long_enough, 1, 0)
        end = torch.where(long_enough, length - 1, length)
        positions = torch.arange(tokens.shape[0])
        mask = ((positions >= start) & (positions < end)).to(tokens.dtype)
        pooled = (tokens * mask[:, None]).sum(dim=0) / mask.sum()
        return self.proj(pooled)


class LengthAwarePoolEager(LengthAwarePool):
    """The original, branching formulation, used as the eager reference."""

    def forward(self, tokens, length):
        k = length.item()
        if k > 2:
            pooled = tokens[1 : k - 1].mean(dim=0)
        else:
            pooled = tokens[:k].mean(dim=0)
        return self.proj(pooled)


model = LengthAwarePool().eval()
example_args = (torch.randn(6, 8), torch.tensor(5))


def main():
    exported = torch.export.export(model, example_args)
    reference = LengthAwarePoolEager().eval()
    reference.load_state_dict(model.state_dict())
    tokens = torch.randn(6, 8)
    for n in (1, 2, 3, 6):  # both sides of the old `k > 2` branch
        length = torch.tensor(n)
        torch.testing.assert_close(exported.module()(tokens, length), reference(tokens, length))
    print("ok: guard-free export matches the branching eager model for lengths 1, 2, 3 and 6")


if __name__ == "__main__":
    main()
