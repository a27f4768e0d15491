"""An input of a class torch.export cannot flatten.

The model takes its batch as a small class holding two tensors. Export flattens every
input into tensors with pytree, which only knows built-in containers and registered
types, so it refuses the class before tracing anything.
"""
import torch
from torch import nn


class Frames:
    """A clip of video frames with a validity mask, as a data loader might batch them."""

    def __init__(self, pixels: torch.Tensor, mask: torch.Tensor):
        self.pixels, self.mask = pixels, mask


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames: Frames):
        return self.proj(frames.pixels) * frames.mask[..., None]


model = FrameEncoder().eval()
example_args = (Frames(torch.randn(2, 8, 16), torch.ones(2, 8)),)


def main():
    # fails: ValueError: Unsupported input type <class '__main__.Frames'>
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
