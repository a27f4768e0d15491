"""Strict export stops at a graph break: a forward hook registered inside forward.

The model taps an intermediate layer by registering a forward hook for the duration of
the call and removing it afterwards. Registering a hook creates a
`torch.utils.hooks.RemovableHandle`, which bumps a counter on the handle class; Dynamo
cannot trace that assignment to a class attribute (GB0467).
"""
import torch
from torch import nn


class TappedEncoder(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, x):
        taps = []
        handle = self.stem.register_forward_hook(lambda mod, inp, out: taps.append(out))
        logits = self.head(torch.relu(self.stem(x)))
        handle.remove()
        return logits, taps[0]


model = TappedEncoder().eval()
example_args = (torch.randn(2, 8),)


def main():
    # fails: torch._dynamo.exc.Unsupported: setattr() on unsupported type
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
