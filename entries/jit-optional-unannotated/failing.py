"""An argument that defaults to None but has no annotation is typed Tensor by TorchScript.

The model is a single self-attention layer whose additive attention mask is optional.
`torch.jit.script` compiles it, but `attn_mask` is a plain Tensor in the compiled code,
so calling it without a mask hands `None` (an undefined tensor) to `scores + attn_mask`.
"""
import torch
from torch import nn


class TinySelfAttention(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x, attn_mask=None):  # attn_mask: no annotation
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        if attn_mask is not None:
            scores = scores + attn_mask
        return self.out(scores.softmax(dim=-1) @ v)


model = TinySelfAttention().eval()
# (batch, tokens, dim)
example_args = (torch.randn(2, 5, 8),)


def main():
    scripted = torch.jit.script(model)  # compiles: attn_mask is inferred as Tensor
    scripted(*example_args)  # fails: the default None reaches `scores + attn_mask`


if __name__ == "__main__":
    main()
