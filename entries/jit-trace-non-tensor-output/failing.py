"""torch.jit.trace can only return tensors (and tuples, lists or dicts of them): a None in the output is refused.

The attention block returns its attention weights only when asked to, and None
otherwise, a common pattern in model code. The trace records the run and then has to
make every returned value an output of the graph, which it cannot do for None.
"""
import torch
from torch import nn


class SelfAttentionBlock(nn.Module):
    def __init__(self, dim: int = 16, need_weights: bool = False):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.norm = nn.LayerNorm(dim)
        self.need_weights = need_weights

    def attend(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = (q @ k.transpose(1, 2) / q.shape[-1] ** 0.5).softmax(dim=-1)
        return weights @ v, (weights if self.need_weights else None)

    def forward(self, x):
        out, weights = self.attend(x)
        return self.norm(x + out), weights  # weights is None unless need_weights


model = SelfAttentionBlock().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
