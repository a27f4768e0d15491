"""Annotating the argument Optional[Tensor] and checking it for None lets TorchScript handle both cases."""
import io
from typing import Optional

import torch
from torch import nn


class TinySelfAttention(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x, attn_mask: Optional[torch.Tensor] = None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        if attn_mask is not None:  # refines Optional[Tensor] to Tensor inside the branch
            scores = scores + attn_mask
        return self.out(scores.softmax(dim=-1) @ v)


model = TinySelfAttention().eval()
example_args = (torch.randn(2, 5, 8),)


def main():
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)

    (x,) = example_args
    causal = torch.full((5, 5), float("-inf")).triu(1)
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), model(x))
        torch.testing.assert_close(loaded(x, causal), model(x, causal))
    print("ok: scripted model matches eager with and without a mask")


if __name__ == "__main__":
    main()
