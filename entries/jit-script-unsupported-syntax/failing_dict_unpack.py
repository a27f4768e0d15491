"""TorchScript cannot build a dict with ** unpacking: {"key": value, **other}.

Dict literals must list their keys one by one. When the `**` entry is not the first one,
torch 2.13 does not even reach its own message: the frontend tries to report the missing
key, which is None, and fails with an AttributeError about `lineno`.
"""
from typing import Dict

import torch
from torch import nn


class TaggedOutputs(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.head = nn.Linear(dim, 2)

    def forward(self, x) -> Dict[str, torch.Tensor]:
        extras: Dict[str, torch.Tensor] = {"features": x}
        return {"logits": self.head(x), **extras}


model = TaggedOutputs().eval()
example_args = (torch.randn(4, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
