"""Return only tensors: leave the attention weights out of the output when they are not computed.

Whether the block returns one tensor or two is decided by its configuration, which is
fixed for a given instance, so the traced program has a fixed, all-tensor output.
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
        out = self.norm(x + out)
        if weights is None:
            return out  # only tensors in the output
        return out, weights


model = SelfAttentionBlock().eval()
example_args = (torch.randn(2, 5, 16),)


def main():
    traced = torch.jit.trace(model, example_args)
    x = torch.randn(3, 7, 16)
    torch.testing.assert_close(traced(x), model(x))
    with_weights = SelfAttentionBlock(need_weights=True).eval()
    traced_w = torch.jit.trace(with_weights, example_args)
    for got, want in zip(traced_w(x), with_weights(x)):
        torch.testing.assert_close(got, want)
    print("ok: the traced block returns tensors only and matches eager, with and without weights")


if __name__ == "__main__":
    main()
