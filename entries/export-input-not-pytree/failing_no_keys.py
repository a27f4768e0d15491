"""The class registered as a pytree node, but without flatten_with_keys_fn.

torch.export names every flattened input by its path (`frames.pixels`), so it needs the
keyed flatten function, which plain register_pytree_node does not require.
"""
import torch
import torch.utils._pytree as pytree
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


pytree.register_pytree_node(
    Frames,
    lambda f: ([f.pixels, f.mask], None),
    lambda values, context: Frames(*values),
)
model = FrameEncoder().eval()
example_args = (Frames(torch.randn(2, 8, 16), torch.ones(2, 8)),)


def main():
    # fails: ValueError: Did not find a flatten_with_keys_fn for type: <class '__main__.Frames'>
    torch.export.export(model, example_args)


if __name__ == "__main__":
    main()
