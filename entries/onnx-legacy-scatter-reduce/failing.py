"""The TorchScript-based ONNX exporter refuses scatter_reduce with include_self=False.

The model pools token features into the table cells they belong to by taking, per
cell, the maximum over its tokens, as TAPAS does for its segmented reductions:
`out.scatter_reduce(0, index, src, reduce="amax", include_self=False)`. ONNX's
ScatterElements always combines with the existing value, so the legacy exporter stops
with `ONNX does not support include_self=False for scatter_reduce`.
"""
import io

import torch
from torch import nn


class CellMaxPool(nn.Module):
    def __init__(self, dim: int = 8, cells: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.cells = cells

    def forward(self, tokens, cell_ids):
        features = self.proj(tokens)  # (tokens, dim)
        index = cell_ids.unsqueeze(1).expand_as(features)
        out = torch.zeros(self.cells, features.shape[1])
        return out.scatter_reduce(0, index, features, reduce="amax", include_self=False)


model = CellMaxPool().eval()
example_args = (torch.randn(10, 8), torch.tensor([0, 0, 1, 1, 1, 2, 2, 3, 3, 3]))


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
