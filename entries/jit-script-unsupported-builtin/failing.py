"""TorchScript has no setattr(): a module that stores state through it does not compile.

The streaming encoder keeps the previous chunk's last frame so that the next chunk
can be smoothed across the boundary, and stores it with `setattr`, as code that names
its caches dynamically often does. TorchScript compiles only a fixed set of Python
builtins, and setattr is not one of them.
"""
import torch
from torch import nn


class StreamingSmoother(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("last_frame", torch.zeros(1, dim))

    def forward(self, chunk):  # (time, dim)
        smoothed = torch.cat([self.last_frame, chunk])[:-1] * 0.5 + chunk * 0.5
        setattr(self, "last_frame", chunk[-1:].detach())
        return self.proj(smoothed)


model = StreamingSmoother().eval()
example_args = (torch.randn(5, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
