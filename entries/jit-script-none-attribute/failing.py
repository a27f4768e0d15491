"""A module attribute set to None in __init__ is typed NoneType by TorchScript.

TorchScript gives each module attribute one static type, inferred from its value when
`torch.jit.script` runs, unless the class annotates it. `self.src_mask = None` therefore
makes `src_mask` an attribute of type `NoneType`, and a forward that calls a tensor
method on it, after checking it or not, does not compile: `'NoneType' object has no
attribute or method 'size'`.
"""
import torch
from torch import nn


class CausalMaskCache(nn.Module):
    """Adds a causal mask to attention scores, building it again when the length changes."""

    def __init__(self):
        super().__init__()
        self.src_mask = None  # built on the first call

    def forward(self, scores):  # (batch, seq, seq)
        if self.src_mask is None or self.src_mask.size(0) != scores.size(-1):
            n = scores.size(-1)
            self.src_mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        return scores + self.src_mask


model = CausalMaskCache().eval()
example_args = (torch.randn(2, 5, 5),)


def main():
    torch.jit.script(model)  # RuntimeError: 'NoneType' object has no attribute or method 'size'


if __name__ == "__main__":
    main()
