"""Export with the dynamo-based exporter, which translates include_self=False.

`torch.onnx.export(..., dynamo=True)` writes the reduction as two ScatterElements: the
first sets the scattered positions to a neutral start (the lowest float32 for amax),
the second reduces the sources into them. The result matches eager in onnxruntime. (This is for sum, prod, amax and
amin; see the entry about mean.)
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class CellMaxPool(nn.Module):
    def __init__(self, dim: int = 8, cells: int = 4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.cells = cells

    def forward(self, tokens, cell_ids):
        features = self.proj(tokens)
        index = cell_ids.unsqueeze(1).expand_as(features)
        out = torch.zeros(self.cells, features.shape[1])
        return out.scatter_reduce(0, index, features, reduce="amax", include_self=False)


model = CellMaxPool().eval()
example_args = (torch.randn(10, 8), torch.tensor([0, 0, 1, 1, 1, 2, 2, 3, 3, 3]))


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        # Cell 2 gets no token: include_self=False leaves it at its initial 0.
        tokens, cell_ids = torch.randn(10, 8), torch.tensor([3, 0, 1, 1, 0, 3, 1, 0, 3, 3])
        (got,) = session.run(None, dict(zip(names, (tokens.numpy(), cell_ids.numpy()))))
    with torch.no_grad():
        expected = model(tokens, cell_ids)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-5)
    print("ok: the dynamo-based exporter translates include_self=False and matches eager")


if __name__ == "__main__":
    main()
