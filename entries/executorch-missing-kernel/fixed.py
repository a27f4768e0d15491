"""Use an operator the runtime has a kernel for: a full sorted topk instead of sort.

`torch.topk(x, k=x.shape[dim], sorted=True)` returns every value in descending order
with its index, which is what `torch.sort(descending=True)` returns. The portable kernel
library implements `topk`, so the method loads and runs.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class RankedMaskHead(nn.Module):
    def __init__(self, dim: int = 16, num_masks: int = 3, size: int = 8):
        super().__init__()
        self.num_masks, self.size = num_masks, size
        self.masks = nn.Linear(dim, num_masks * size * size)
        self.iou = nn.Linear(dim, num_masks)

    def forward(self, tokens):
        masks = self.masks(tokens).view(-1, self.num_masks, self.size, self.size)
        scores, order = torch.topk(self.iou(tokens), k=self.num_masks, dim=1, sorted=True)
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
        method = Runtime.get().load_program(str(path)).load_method("forward")
        tokens = torch.randn(2, 16)
        masks, scores = method.execute([tokens])

    with torch.no_grad():
        want_masks, want_scores = model(tokens)
        # The original model, with torch.sort, gives the same ranking.
        sort_scores, _ = torch.sort(model.iou(tokens), dim=1, descending=True)
    torch.testing.assert_close(scores, want_scores)
    torch.testing.assert_close(scores, sort_scores)
    torch.testing.assert_close(masks, want_masks)
    print("ok: the ExecuTorch program loads, runs and matches eager (same order as torch.sort)")


if __name__ == "__main__":
    main()
