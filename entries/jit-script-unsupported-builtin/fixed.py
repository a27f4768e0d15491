"""Assign the attribute directly: TorchScript supports `self.name = value` for a declared attribute.

The buffer `last_frame` is a Tensor attribute of the module, so the scripted forward may
rebind it, as long as it stays a Tensor. The scripted module is checked over three
chunks of a stream, so the carried state matters.
"""
import copy

import torch
from torch import nn


class StreamingSmoother(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("last_frame", torch.zeros(1, dim))

    def forward(self, chunk):  # (time, dim)
        smoothed = torch.cat([self.last_frame, chunk])[:-1] * 0.5 + chunk * 0.5
        self.last_frame = chunk[-1:].detach()  # plain assignment compiles
        return self.proj(smoothed)


model = StreamingSmoother().eval()
example_args = (torch.randn(5, 8),)


def main():
    eager = copy.deepcopy(model)
    scripted = torch.jit.script(copy.deepcopy(model))
    for length in (5, 3, 7):
        chunk = torch.randn(length, 8)
        torch.testing.assert_close(scripted(chunk), eager(chunk))
    torch.testing.assert_close(scripted.last_frame, eager.last_frame)
    print("ok: the scripted smoother carries its state across three chunks like eager")


if __name__ == "__main__":
    main()
