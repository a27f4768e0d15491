"""Keep every tensor at 6 dims or fewer: fold the depth windows into the batch first.

Viewing (B, D, H, W, C) as (B * D/wd, wd, H/wh, wh, W/ww, ww * C) needs 6 dims, and one
6-D permute brings the window axes together. The windows and their tokens come out in
the same order as with the 8-D view, so the result is identical. XNNPACK then builds
its runtime, the method loads, and the output matches eager.
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
        x = x.reshape(b * (d // wd), wd, h // wh, wh, w // ww, ww * c)  # 6 dims
        windows = x.permute(0, 2, 4, 1, 3, 5).reshape(-1, wd * wh * ww, c)
        return self.proj(windows)


class EightDimPartition(VideoWindowPartition):
    """The failing model's forward, to check that the rewrite gives the same result."""

    def forward(self, x):
        b, d, h, w, c = x.shape
        wd, wh, ww = self.window
        x = x.view(b, d // wd, wd, h // wh, wh, w // ww, ww, c)
        return self.proj(x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(-1, wd * wh * ww, c))


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
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(1, 4, 8, 8, 8)
        (got,) = method.execute([x])

    original = EightDimPartition().eval()
    original.load_state_dict(model.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(got, model(x))
        torch.testing.assert_close(model(x), original(x), rtol=0, atol=0)
    print("ok: with 6-D windows the XNNPACK program loads, runs and matches eager (and the 8-D original)")


if __name__ == "__main__":
    main()
