"""Strict export stops at a graph break: a `with self._lock:` block in forward.

The rotary position table is shared by serving threads, so forward takes a
`threading.Lock` while it counts calls. TorchDynamo only knows how to enter the context
managers it has rules for (grad modes, autocast and the like); a lock is not one of
them, so strict export fails with an Unsupported graph break (GB0142).
"""
import threading

import torch
from torch import nn


class ThreadSafeRotary(nn.Module):
    """Applies rotary position embedding to (batch, tokens, dim) features."""

    def __init__(self, dim: int = 8, base: float = 10000.0):
        super().__init__()
        self.register_buffer("inv_freq", base ** (-torch.arange(0, dim, 2).float() / dim))
        self._lock = threading.Lock()
        self.calls = 0  # usage statistics, shared between threads

    def forward(self, x):
        with self._lock:
            self.calls += 1
        angles = torch.outer(torch.arange(x.shape[1], dtype=torch.float32), self.inv_freq)
        cos, sin = angles.cos(), angles.sin()
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


model = ThreadSafeRotary().eval()
example_args = (torch.randn(2, 6, 8),)


def main():
    # fails: torch._dynamo.exc.Unsupported: Unsupported context manager
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
