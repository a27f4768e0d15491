"""Write the bucket lookup with Core ATen operators, which ExecuTorch can lower and run.

With `right=True`, `torch.bucketize(x, boundaries)` is the number of boundaries that are
less than or equal to `x`. A broadcast comparison and a sum compute the same integer
with `ge` and `sum`, both Core ATen operators with portable kernels.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class FractionalPositionEmbedding(nn.Module):
    def __init__(self, grid: int = 4, dim: int = 8):
        super().__init__()
        self.register_buffer("boundaries", torch.arange(1, grid) / grid)
        self.embed = nn.Embedding(grid, dim)

    def forward(self, coords):
        cell = (coords.unsqueeze(-1) >= self.boundaries).sum(-1)
        return self.embed(cell)


model = FractionalPositionEmbedding().eval()
example_args = (torch.rand(2, 6),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        # Values on the boundaries too: bucketize(right=True) puts 0.25 in cell 1.
        coords = torch.tensor([[0.0, 0.1, 0.25, 0.3, 0.5, 0.6], [0.7, 0.75, 0.8, 0.9, 0.99, 0.24]])
        (result,) = method.execute([coords])

    reference = model.embed(torch.bucketize(coords, model.boundaries, right=True))
    torch.testing.assert_close(result, reference)
    torch.testing.assert_close(result, model(coords))
    print("ok: the ExecuTorch program runs and matches eager torch.bucketize, boundaries included")


if __name__ == "__main__":
    main()
