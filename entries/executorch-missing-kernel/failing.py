"""An ExecuTorch program can only call operators that its runtime has kernels for.

Lowering checks that every operator is Core ATen, not that the runtime you load the
program into implements it. `aten.sort` is Core ATen, but the portable kernel library
behind ExecuTorch's Python runtime has no `sort`: the program lowers and saves, and
loading its method fails with error 0x14, `OperatorMissing`.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class RankedMaskHead(nn.Module):
    """Scores candidate masks and returns them best first, like SAM-HQ's multimask output."""

    def __init__(self, dim: int = 16, num_masks: int = 3, size: int = 8):
        super().__init__()
        self.num_masks, self.size = num_masks, size
        self.masks = nn.Linear(dim, num_masks * size * size)
        self.iou = nn.Linear(dim, num_masks)

    def forward(self, tokens):
        masks = self.masks(tokens).view(-1, self.num_masks, self.size, self.size)
        scores, order = torch.sort(self.iou(tokens), dim=1, descending=True)
        masks = torch.gather(masks, 1, order[:, :, None, None].expand_as(masks))
        return masks, scores


model = RankedMaskHead().eval()
example_args = (torch.randn(2, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        Runtime.get().load_program(str(path)).load_method("forward")


if __name__ == "__main__":
    main()
