"""Give torch.full its dtype explicitly.

With `dtype=torch.long`, the legacy exporter emits an int64 tensor, the `Where` and the
`Gather` get integer indices, and the model loads and matches eager in onnxruntime.
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
        position_ids = torch.full((batch, patches), fill_value=0, dtype=torch.long)
        ordinal = torch.cumsum(patch_mask.long(), dim=1) - 1
        position_ids = torch.where(patch_mask, ordinal, position_ids)
        return self.position_embedding(position_ids)


model = PatchPositions().eval()
example_args = (torch.tensor([[True, True, True, False], [True, True, False, False]]),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False, input_names=["patch_mask"])
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        mask = torch.tensor([[True, False, False, False], [True, True, True, True]])
        (got,) = session.run(None, {"patch_mask": mask.numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(mask))
    print("ok: with an explicit dtype the legacy export loads in onnxruntime and matches eager")


if __name__ == "__main__":
    main()
