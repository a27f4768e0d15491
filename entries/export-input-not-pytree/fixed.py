"""Make the input class a dataclass and register it with torch.export.register_dataclass.

Registration tells pytree how to flatten the class into its tensor fields (with their
names) and rebuild it; the serialized type name lets torch.export.save write it. The
program takes a Frames object, survives a save/load round trip and matches eager.
"""
import dataclasses
import io

import torch
from torch import nn


@dataclasses.dataclass
class Frames:
    """A clip of video frames with a validity mask, as a data loader might batch them."""

    pixels: torch.Tensor
    mask: torch.Tensor


torch.export.register_dataclass(Frames, serialized_type_name="exportkb.example.Frames")


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
    buffer = io.BytesIO()
    torch.export.save(exported, buffer)
    buffer.seek(0)
    with torch.serialization.safe_globals([Frames]):  # the saved example inputs hold a Frames
        loaded = torch.export.load(buffer)
    frames = Frames(torch.randn(2, 8, 16), (torch.rand(2, 8) > 0.3).float())
    with torch.no_grad():
        expected = model(frames)
    torch.testing.assert_close(exported.module()(frames), expected)
    torch.testing.assert_close(loaded.module()(frames), expected)
    print("ok: the registered dataclass input exports, saves, loads and matches eager")


if __name__ == "__main__":
    main()
