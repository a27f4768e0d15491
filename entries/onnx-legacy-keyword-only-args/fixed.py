"""Export with the dynamo-based exporter, which passes keyword arguments by keyword.

torch.export records `kwargs` by name, so a keyword-only parameter is filled correctly
and becomes an ordinary input of the ONNX graph.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class MaskedSum(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, *, mask):
        return (self.proj(x) * mask.unsqueeze(-1)).sum(dim=1)


model = MaskedSum().eval()
example_args = (torch.randn(2, 5, 8),)
example_kwargs = {"mask": torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])}


def main():
    program = torch.onnx.export(model, example_args, kwargs=example_kwargs, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        x, mask = torch.randn(2, 5, 8), torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 1.0, 1.0]])
        (got,) = session.run(None, dict(zip(names, (x.numpy(), mask.numpy()))))
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x, mask=mask), rtol=1e-4, atol=1e-5)
    print(f"ok: the dynamo-based exporter takes {names} as inputs and matches eager")


if __name__ == "__main__":
    main()
