"""TorchScript cannot unpack a tensor into names: row, col = edge_index.

The graph convolution takes its edges as one `(2, num_edges)` tensor, as PyTorch
Geometric does, and splits it into source and target rows with `row, col = edge_index`.
Python iterates the tensor along its first dimension; TorchScript only unpacks tuples
(and, in a few special forms, lists), whose length it knows when it compiles, and a
Tensor's first dimension is only known at run time.
"""
import torch
from torch import nn


class GraphConv(nn.Module):
    """Mean aggregation of transformed neighbour features, plus a self connection."""

    def __init__(self, in_dim: int = 8, out_dim: int = 16):
        super().__init__()
        self.neighbour = nn.Linear(in_dim, out_dim)
        self.root = nn.Linear(in_dim, out_dim)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        row, col = edge_index  # source and target node of every edge
        messages = self.neighbour(x)[row]
        summed = torch.zeros(x.size(0), messages.size(1)).index_add_(0, col, messages)
        degree = torch.zeros(x.size(0)).index_add_(0, col, torch.ones(col.numel()))
        return self.root(x) + summed / degree.clamp(min=1).unsqueeze(1)


model = GraphConv().eval()
example_args = (torch.randn(5, 8), torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]]))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
