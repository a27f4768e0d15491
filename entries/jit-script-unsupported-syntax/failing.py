"""TorchScript compiles only a subset of Python: a try/except block in forward is outside it.

`torch.jit.script` parses the source of forward and rejects the statements it has no
equivalent for. Exception handling is one of them: a scripted method can raise, but it
cannot catch, so any `try:` in it stops compilation, even when the except branch is only
a fallback for an unusual input.
"""
import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbed1d(nn.Module):
    def __init__(self, patch: int = 4, dim: int = 8):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch, dim)

    def forward(self, x):
        try:
            # Fails when the length is not a multiple of the patch size.
            patches = x.view(x.size(0), -1, self.patch)
        except RuntimeError:
            pad = self.patch - x.size(1) % self.patch
            patches = F.pad(x, (0, pad)).view(x.size(0), -1, self.patch)
        return self.proj(patches)


model = PatchEmbed1d().eval()
example_args = (torch.randn(2, 18),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
