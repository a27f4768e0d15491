"""Annotate the attribute as Optional[Tensor] on the class, and test a local copy of it.

The class-level annotation `src_mask: Optional[torch.Tensor]` gives the attribute the type
it will have, so assigning a tensor later is allowed. TorchScript narrows an Optional to a
Tensor only for a local variable tested directly, so forward copies the attribute into a
local, tests that, and writes the new mask back. Eager behaviour is unchanged; the
scripted module is saved, loaded and compared with eager for two sequence lengths.
"""
import io
from typing import Optional

import torch
from torch import nn


class CausalMaskCache(nn.Module):
    """Adds a causal mask to attention scores, building it again when the length changes."""

    src_mask: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.src_mask = None  # built on the first call

    def forward(self, scores):  # (batch, seq, seq)
        mask = self.src_mask  # a local can be refined, an attribute cannot
        if mask is None or mask.size(0) != scores.size(-1):
            n = scores.size(-1)
            mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
            self.src_mask = mask
        return scores + mask


model = CausalMaskCache().eval()
example_args = (torch.randn(2, 5, 5),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    loaded = torch.jit.load(buf)
    for seq in (5, 7, 5):
        scores = torch.randn(2, seq, seq)
        torch.testing.assert_close(loaded(scores), CausalMaskCache()(scores))
    print("ok: scripted with src_mask: Optional[Tensor], saved, loaded, and matched eager for lengths 5 and 7")


if __name__ == "__main__":
    main()
