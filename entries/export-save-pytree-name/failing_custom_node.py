"""torch.export.save of a program whose input is a custom pytree node registered without a name.

`Frames` is registered with register_pytree_node (and the keyed flatten function export
needs), so export succeeds. Saving writes the input spec, which refers to each node type
by its serialized_type_name; none was given, so the save fails.
"""
import io

import torch
import torch.utils._pytree as pytree
from torch import nn


class Frames:
    def __init__(self, pixels: torch.Tensor, mask: torch.Tensor):
        self.pixels, self.mask = pixels, mask


pytree.register_pytree_node(
    Frames,
    lambda f: ([f.pixels, f.mask], None),
    lambda values, context: Frames(*values),
    flatten_with_keys_fn=lambda f: (
        [(pytree.GetAttrKey("pixels"), f.pixels), (pytree.GetAttrKey("mask"), f.mask)], None),
)


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames: Frames):
        return self.proj(frames.pixels) * frames.mask[..., None]


model = FrameEncoder().eval()
example_args = (Frames(torch.randn(2, 8, 16), torch.ones(2, 8)),)


def main():
    exported = torch.export.export(model, example_args)
    # fails: NotImplementedError: No registered serialization name for <class '__main__.Frames'>
    torch.export.save(exported, io.BytesIO())


if __name__ == "__main__":
    main()
