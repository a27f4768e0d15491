"""XNNPACK accepts an 8-D permute when lowering, then fails to load it: it handles at most 6 dims.

The model partitions a video feature map into 3-D windows the way Video Swin does:
(batch, depth, height, width, channels) is viewed as 8 dims, the window axes are
permuted together, and the windows are flattened into tokens for a linear layer. The
XNNPACK partitioner takes the whole graph, and `to_executorch` writes the program, but
XNNPACK cannot define a tensor of more than 6 dimensions: loading the method fails.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class VideoWindowPartition(nn.Module):
    """Split (B, D, H, W, C) into (wd, wh, ww) windows, then project every token."""

    def __init__(self, dim: int = 8, window=(2, 4, 4)):
        super().__init__()
        self.window = window
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, d, h, w, c = x.shape
        wd, wh, ww = self.window
        x = x.view(b, d // wd, wd, h // wh, wh, w // ww, ww, c)  # 8 dims
        windows = x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(-1, wd * wh * ww, c)
        return self.proj(windows)


model = VideoWindowPartition().eval()
example_args = (torch.randn(1, 4, 8, 8, 8),)


def main():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        # fails: the XNNPACK delegate cannot build its runtime for the 8-D tensors
        Runtime.get().load_program(str(path)).load_method("forward")


if __name__ == "__main__":
    main()
