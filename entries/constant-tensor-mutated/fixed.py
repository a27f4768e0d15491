"""Registering the counter as a buffer makes its update part of the exported program."""
import copy

import torch
from torch import nn


class StreamingDecay(nn.Module):
    """Scales each incoming chunk by decay ** (number of chunks seen so far)."""

    def __init__(self, dim: int = 4, decay: float = 0.5):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.decay = decay
        self.register_buffer("steps", torch.zeros(1))  # state lives in a buffer

    def forward(self, chunk):
        self.steps.add_(1)  # in-place update: recorded as a buffer mutation
        return self.proj(chunk) * self.decay ** self.steps


model = StreamingDecay().eval()
example_args = (torch.randn(2, 4),)


def main():
    eager = copy.deepcopy(model)
    exported = torch.export.export(model, example_args)
    program = exported.module()
    chunk = torch.randn(2, 4)
    for call in range(2):
        torch.testing.assert_close(program(chunk), eager(chunk), msg=f"call {call + 1}")
    torch.testing.assert_close(program.steps, eager.steps)
    print("ok: two calls of the exported program match two eager calls (steps == 2)")


if __name__ == "__main__":
    main()
