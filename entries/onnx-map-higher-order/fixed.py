"""Vectorize the body with torch.vmap instead of mapping it.

`torch.vmap` is traced into ordinary batched operators, which the ONNX exporter
translates; the number of candidates can stay dynamic.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn
from torch.export import Dim


class CandidateScorer(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, candidates, query):
        def score(candidate):
            return (torch.tanh(self.proj(candidate)) * query).sum(-1)

        return torch.vmap(score)(candidates)


model = CandidateScorer().eval()
example_args = (torch.randn(5, 8), torch.randn(8))
dynamic_shapes = {"candidates": {0: Dim("n", min=2, max=1024)}, "query": None}


def main():
    program = torch.onnx.export(model, example_args, dynamic_shapes=dynamic_shapes, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        for n in (5, 11):
            candidates, query = torch.randn(n, 8), torch.randn(8)
            (got,) = session.run(None, dict(zip(names, (candidates.numpy(), query.numpy()))))
            with torch.no_grad():
                torch.testing.assert_close(torch.from_numpy(got), model(candidates, query), rtol=1e-4, atol=1e-5)
    print("ok: the vmap version exports to ONNX and matches eager for 5 and 11 candidates")


if __name__ == "__main__":
    main()
