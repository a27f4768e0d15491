"""Index the rows instead of unpacking the tensor: row, col = edge_index[0], edge_index[1].

A tuple of two indexing expressions has a length TorchScript knows, so it compiles, and
in eager mode it gives the same two rows. `edge_index.unbind(0)` also compiled on torch
2.13. The scripted layer is saved, loaded and compared with eager on another graph.
"""
import io

import torch
from torch import nn


class GraphConv(nn.Module):
    """Mean aggregation of transformed neighbour features, plus a self connection."""

    def __init__(self, in_dim: int = 8, out_dim: int = 16):
        super().__init__()
        self.neighbour = nn.Linear(in_dim, out_dim)
        self.root = nn.Linear(in_dim, out_dim)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        row, col = edge_index[0], edge_index[1]  # a tuple of known length
        messages = self.neighbour(x)[row]
        summed = torch.zeros(x.size(0), messages.size(1)).index_add_(0, col, messages)
        degree = torch.zeros(x.size(0)).index_add_(0, col, torch.ones(col.numel()))
        return self.root(x) + summed / degree.clamp(min=1).unsqueeze(1)


model = GraphConv().eval()
example_args = (torch.randn(5, 8), torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]]))


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    x = torch.randn(7, 8)
    edge_index = torch.randint(0, 7, (2, 20))
    with torch.no_grad():
        torch.testing.assert_close(scripted(x, edge_index), model(x, edge_index))
    print("ok: the scripted graph layer saves, loads and matches eager on a 7-node, 20-edge graph")


if __name__ == "__main__":
    main()
