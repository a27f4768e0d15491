"""ExecuTorch only lowers programs made of Core ATen operators.

`to_edge_transform_and_lower` turns the exported program into the Edge dialect and
verifies that every operator left after decomposition belongs to Core ATen, the small
operator set that ExecuTorch kernels and backends are written against. `torch.bucketize`
has no decomposition into that set, so the verifier rejects the program.
"""
import torch
from torch import nn


class FractionalPositionEmbedding(nn.Module):
    """Gives each patch the embedding of the grid cell its fractional coordinate falls in,
    as the SmolVLM vision encoder does for images of any size."""

    def __init__(self, grid: int = 4, dim: int = 8):
        super().__init__()
        self.register_buffer("boundaries", torch.arange(1, grid) / grid)
        self.embed = nn.Embedding(grid, dim)

    def forward(self, coords):
        cell = torch.bucketize(coords, self.boundaries, right=True)
        return self.embed(cell)


model = FractionalPositionEmbedding().eval()
example_args = (torch.rand(2, 6),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args)
    to_edge_transform_and_lower(exported).to_executorch()


if __name__ == "__main__":
    main()
