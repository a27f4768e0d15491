"""Concatenate only what is there: no empty placeholder in the list handed to torch.cat.

A missing prefix is `None`, and the list is built from the parts that exist. Whether
the prefix exists is known when the model is built, so the exported graph has a
`Concat` of the two rank-4 inputs only. The file loads in onnxruntime and matches eager
on new keys and memory.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class PrefixedKeys(nn.Module):
    """Keys for 4 heads of 8 dims: [prefix, memory, new], along the sequence."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.key = nn.Linear(dim, dim)
        self.prefix = None  # no prefix: nothing to concatenate

    def forward(self, x, memory):  # x (batch, new, dim), memory (batch, heads, old, dim / heads)
        batch, new, dim = x.shape
        k = self.key(x).view(batch, new, self.heads, dim // self.heads).transpose(1, 2)
        parts = [memory, k] if self.prefix is None else [self.prefix.expand(batch, -1, -1, -1), memory, k]
        return torch.cat(parts, dim=-2)


model = PrefixedKeys().eval()
example_args = (torch.randn(2, 5, 32), torch.randn(2, 4, 3, 8))


def main():
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "keys.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=True)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x, memory = torch.randn(2, 5, 32), torch.randn(2, 4, 3, 8)
        names = [i.name for i in session.get_inputs()]
        (got,) = session.run(None, dict(zip(names, (x.numpy(), memory.numpy()))))
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x, memory))
    print("ok: the Concat of the two rank-4 inputs loads in onnxruntime and matches eager on new keys and memory")


if __name__ == "__main__":
    main()
