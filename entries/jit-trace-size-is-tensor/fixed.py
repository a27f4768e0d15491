"""Write size arithmetic with integer operators, which the tracer records as operations.

`(n + 1) // 2` is the number of tokens to keep, rounded up. On a traced size, `+` and `//`
become tensor operations, so the traced program recomputes the count for every input
instead of failing or keeping the example's count.
"""
import torch
from torch import nn


class HalfTokenPool(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):  # (batch, tokens, dim)
        keep = (tokens.shape[1] + 1) // 2  # half, rounded up, in integer arithmetic
        return self.proj(tokens[:, :keep])


model = HalfTokenPool().eval()
example_args = (torch.randn(2, 10, 8),)
alt_args = (torch.randn(3, 7, 8),)  # another batch size and length, for the corpus harness


def main():
    traced = torch.jit.trace(model, example_args)
    for length in (3, 7, 10, 16):
        x = torch.randn(3, length, 8)
        torch.testing.assert_close(traced(x), model(x))
    print("ok: the traced pool keeps (n + 1) // 2 tokens for lengths 3, 7, 10 and 16, like eager")


if __name__ == "__main__":
    main()
