"""Make the grid contiguous before resizing it.

`.contiguous()` copies the NCHW view into NCHW memory, so the bicubic resize produces a
tensor in the default dim order, and every kernel after it sees input and output in the
same dim order.
"""
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


class ResizedPositionEmbedding(nn.Module):
    def __init__(self, dim: int = 8, grid: int = 4):
        super().__init__()
        self.grid = grid
        self.table = nn.Parameter(torch.randn(1, grid * grid, dim))

    def forward(self, features):
        height, width = features.shape[1], features.shape[2]
        pos = self.table.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2).contiguous()
        pos = F.interpolate(pos, size=(height, width), mode="bicubic", align_corners=False)
        return features + pos.permute(0, 2, 3, 1)


model = ResizedPositionEmbedding().eval()
example_args = (torch.randn(1, 8, 8, 8),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        features = torch.randn(1, 8, 8, 8)
        (result,) = method.execute([features])

    with torch.no_grad():
        torch.testing.assert_close(result, model(features))
    print("ok: the ExecuTorch program runs and matches eager")


if __name__ == "__main__":
    main()
