"""The dynamo-based exporter writes the newer opset; onnxruntime runs it and matches eager."""
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


model = SelfAttention().eval()
example_args = (torch.randn(2, 6, 32),)


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "attention.onnx")
        torch.onnx.export(model, example_args, path, opset_version=24, dynamo=True,
                          input_names=["x"], output_names=["y"])
        graph = onnx.load(path)
        opsets = {o.domain or "ai.onnx": o.version for o in graph.opset_import}
        assert opsets["ai.onnx"] == 24, opsets
        # What the newer opset was for: attention as one ONNX node (opset 23 and later).
        assert "Attention" in {node.op_type for node in graph.graph.node}
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        (y,) = session.run(None, {"x": example_args[0].numpy()})
    with torch.no_grad():
        expected = model(*example_args).numpy()
    assert np.allclose(y, expected, rtol=1e-4, atol=1e-5), np.abs(y - expected).max()
    print("ok: the dynamo exporter writes opset 24 with an Attention node; onnxruntime runs it and matches eager")


if __name__ == "__main__":
    main()
