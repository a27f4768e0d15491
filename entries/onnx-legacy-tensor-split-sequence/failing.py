"""The TorchScript-based ONNX exporter loses the shapes of torch.tensor_split's pieces.

The block below pools the patch tokens of a sequence and keeps its class token apart,
as torchvision's MViT does: `torch.tensor_split(x, indices=(1,), dim=2)` separates the
token, `torch.cat` puts it back, and `squeeze(1)` drops the head dimension that was
added for the pooling. The legacy exporter (`dynamo=False`) emits `tensor_split` as an
ONNX tensor sequence, so the sizes after it are unknown to it; it turns `squeeze(1)`
into an `If` on the size of dimension 1 and declares a wrong static shape for the `If`'s
output. Export succeeds; onnxruntime then fails on the first run, inside the `If`.
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
        x = x.unsqueeze(1)  # (batch, heads=1, tokens, dim), as attention pooling sees it
        class_token, patches = torch.tensor_split(x, indices=(1,), dim=2)
        b, h, n, c = patches.shape
        pooled = self.pool(patches.reshape(b * h, n, c).transpose(1, 2)).transpose(1, 2)
        x = torch.cat((class_token, pooled.reshape(b, h, -1, c)), dim=2)
        return self.norm(x.squeeze(1))


model = TokenPool().eval()
example_args = (torch.randn(2, 17, 8),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False)  # succeeds
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})  # fails


if __name__ == "__main__":
    main()
