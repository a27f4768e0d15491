"""The TorchScript-based ONNX exporter makes `torch.full` with an integer fill value a float tensor.

In eager mode `torch.full(size, fill_value=0)` infers int64 from the integer fill
value. The legacy exporter ignores that and emits float32 when no `dtype` is given. The
model below builds patch position ids the way SmolVLM's and Phi-4-multimodal's vision
embeddings do: a `torch.full(..., fill_value=0)` default, overwritten with `torch.where`
where the patch mask is set, then looked up in an embedding table. The exported
`Gather` receives float indices, and onnxruntime refuses to load the model.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn


class PatchPositions(nn.Module):
    def __init__(self, max_patches: int = 16, dim: int = 8):
        super().__init__()
        self.position_embedding = nn.Embedding(max_patches, dim)

    def forward(self, patch_mask):
        batch, patches = patch_mask.shape
        position_ids = torch.full((batch, patches), fill_value=0)
        ordinal = torch.cumsum(patch_mask.long(), dim=1) - 1  # 0, 1, 2, ... over valid patches
        position_ids = torch.where(patch_mask, ordinal, position_ids)
        return self.position_embedding(position_ids)


model = PatchPositions().eval()
example_args = (torch.tensor([[True, True, True, False], [True, True, False, False]]),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False)
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])  # fails to load


if __name__ == "__main__":
    main()
