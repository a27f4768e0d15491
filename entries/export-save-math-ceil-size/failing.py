"""torch.export.save cannot serialize math.ceil (or floor, round) applied to a dynamic size.

A streaming audio encoder cuts its frames into fixed-size blocks and needs the number
of blocks, `math.ceil(frames / block)`. With the frame count dynamic, export records
that Python call on the symbolic size as a node of the graph and the program runs, but
the serializer only knows a fixed set of symbolic operations, and `math.ceil` is not
one of them: `torch.export.save` raises.
"""
import io
import math

import torch
from torch import nn


class BlockPooling(nn.Module):
    """Pads the frames to whole blocks and averages each block, as a blockwise encoder does."""

    def __init__(self, block: int = 4):
        super().__init__()
        self.block = block

    def forward(self, frames):  # (batch, time, features)
        batch, time, features = frames.shape
        blocks = math.ceil(time / self.block)
        frames = nn.functional.pad(frames, (0, 0, 0, blocks * self.block - time))
        return frames.reshape(batch, blocks, self.block, features).mean(dim=2)


model = BlockPooling().eval()
example_args = (torch.randn(2, 10, 8),)
dynamic_shapes = ({0: torch.export.Dim("batch"), 1: torch.export.Dim("time", min=5, max=4096)},)


def main():
    program = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    torch.export.save(program, io.BytesIO())


if __name__ == "__main__":
    main()
