"""Split with slicing, whose output shapes the legacy exporter knows.

`x[:, :, :1]` and `x[:, :, 1:]` give the same two pieces as `torch.tensor_split(x,
indices=(1,), dim=2)`, and the TorchScript-based exporter emits them as two `Slice`
nodes with static shapes. `squeeze(1)` is then an ordinary `Squeeze`; the exported
model runs in onnxruntime and matches eager on fresh inputs.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class TokenPool(nn.Module):
    """Halves the number of patch tokens; the class token (position 0) is not pooled."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.pool = nn.MaxPool1d(3, stride=2, padding=1)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):  # x: (batch, tokens, dim)
        x = x.unsqueeze(1)
        class_token, patches = x[:, :, :1], x[:, :, 1:]  # instead of torch.tensor_split
        b, h, n, c = patches.shape
        pooled = self.pool(patches.reshape(b * h, n, c).transpose(1, 2)).transpose(1, 2)
        x = torch.cat((class_token, pooled.reshape(b, h, -1, c)), dim=2)
        return self.norm(x.squeeze(1))


model = TokenPool().eval()
example_args = (torch.randn(2, 17, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x = torch.randn(2, 17, 8)
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-5)
    print("ok: sliced instead of tensor_split; the legacy export runs in onnxruntime and matches eager")


if __name__ == "__main__":
    main()
