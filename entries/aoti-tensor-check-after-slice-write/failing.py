"""AOTInductor fails on a tensor-valued check placed after in-place slice writes.

`torch._check_tensor_all(cond)` is exported as `_is_all_true(cond).item()`, a symbolic
boolean. Writing into slices of a tensor (`edges[..., 0] = -bound`) is exported as
scatter operators that Inductor later turns back into in-place writes; after that pass
it recomputes the metadata of every node downstream, and comparing the old and new
symbolic boolean of the check raises a TypeError inside Inductor.
"""
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


class SplineBinEdges(nn.Module):
    """Turns bin-width logits into monotonic bin edges that span [-bound, bound],
    as the rational-quadratic spline of VITS does."""

    def __init__(self, bound: float = 5.0):
        super().__init__()
        self.bound = bound

    def forward(self, logits):
        widths = logits.softmax(-1)
        edges = F.pad(torch.cumsum(widths, -1), (1, 0)) * (2 * self.bound) - self.bound
        edges[..., 0] = -self.bound
        edges[..., -1] = self.bound
        torch._check_tensor_all(edges[..., 1:] >= edges[..., :-1])
        return edges


model = SplineBinEdges().eval()
example_args = (torch.randn(6, 4),)


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))


if __name__ == "__main__":
    main()
