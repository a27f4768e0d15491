"""Count the blocks with integer division, which the serializer knows.

`-(-time // block)` is the ceiling of `time / block` for positive integers, computed
with floor division and negation only. Both are symbolic operations that
`torch.export.save` can write, so the program saves, loads, and matches eager on a
length it was not exported with.
"""
import io

import torch
from torch import nn


class BlockPooling(nn.Module):
    """Pads the frames to whole blocks and averages each block, as a blockwise encoder does."""

    def __init__(self, block: int = 4):
        super().__init__()
        self.block = block

    def forward(self, frames):  # (batch, time, features)
        batch, time, features = frames.shape
        blocks = -(-time // self.block)  # ceil(time / block) in integers
        frames = nn.functional.pad(frames, (0, 0, 0, blocks * self.block - time))
        return frames.reshape(batch, blocks, self.block, features).mean(dim=2)


model = BlockPooling().eval()
example_args = (torch.randn(2, 10, 8),)
dynamic_shapes = ({0: torch.export.Dim("batch"), 1: torch.export.Dim("time", min=5, max=4096)},)


def main():
    program = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer).module()
    frames = torch.randn(3, 23, 8)  # another batch and a length that is not a multiple of 4
    torch.testing.assert_close(loaded(frames), model(frames))
    print("ok: the program saves, loads and matches eager on 23 frames")


if __name__ == "__main__":
    main()
