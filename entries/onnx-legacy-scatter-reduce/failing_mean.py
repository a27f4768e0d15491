"""A mean reduction is refused too, whatever include_self is."""
import io

import torch
from torch import nn


class CellMeanPool(nn.Module):
    def __init__(self, dim: int = 8, cells: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.cells = cells

    def forward(self, tokens, cell_ids):
        features = self.proj(tokens)
        index = cell_ids.unsqueeze(1).expand_as(features)
        out = torch.zeros(self.cells, features.shape[1])
        return out.scatter_reduce(0, index, features, reduce="mean", include_self=False)


model = CellMeanPool().eval()
example_args = (torch.randn(10, 8), torch.tensor([0, 0, 1, 1, 1, 2, 2, 3, 3, 3]))


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
