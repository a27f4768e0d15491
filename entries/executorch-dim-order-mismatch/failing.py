"""ExecuTorch's portable permute kernel needs its input and output in the same dim order.

Resizing a position-embedding grid with bicubic interpolation, as ViTDet does, starts
from `table.reshape(1, s, s, d).permute(0, 3, 1, 2)`: an NCHW view of NHWC memory. The
exported bicubic resize keeps that channels-last memory format, so ExecuTorch gives its
result the dim order (0, 2, 3, 1). The `permute(0, 2, 3, 1)` that follows produces a
contiguous tensor, and the portable `permute_copy` kernel refuses to convert between dim
orders: the method fails at run time.

ExecuTorch says why only in its native log on stderr; the Python exception carries an
error code. `execute()` below attaches the log lines to the error, as the corpus
harness does, so that the message names the cause.
"""
import os
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


class ResizedPositionEmbedding(nn.Module):
    """Adds a learned 4x4 position-embedding grid, resized to the feature map, to NHWC features."""

    def __init__(self, dim: int = 8, grid: int = 4):
        super().__init__()
        self.grid = grid
        self.table = nn.Parameter(torch.randn(1, grid * grid, dim))

    def forward(self, features):
        height, width = features.shape[1], features.shape[2]
        pos = self.table.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2)
        pos = F.interpolate(pos, size=(height, width), mode="bicubic", align_corners=False)
        return features + pos.permute(0, 2, 3, 1)


model = ResizedPositionEmbedding().eval()
example_args = (torch.randn(1, 8, 8, 8),)


def execute(method, inputs):
    """method.execute(inputs), with ExecuTorch's own log lines added to its error."""
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            return method.execute(inputs)
        except RuntimeError as exc:
            os.dup2(saved, 2)
            log.seek(0)
            lines = [ln for ln in log.read().decode(errors="replace").splitlines() if "failed" in ln]
            raise RuntimeError("\n".join([str(exc), *lines])) from exc
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        execute(method, list(example_args))


if __name__ == "__main__":
    main()
