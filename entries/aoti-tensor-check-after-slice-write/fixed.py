"""Build the pinned edges with torch.cat instead of writing into slices.

Without slice assignments there are no scatter operators for Inductor to turn back into
in-place writes, so nothing forces it to recompute the check's symbolic boolean, and the
check stays in the compiled program.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class SplineBinEdges(nn.Module):
    def __init__(self, bound: float = 5.0):
        super().__init__()
        self.bound = bound

    def forward(self, logits):
        widths = logits.softmax(-1)
        inner = torch.cumsum(widths, -1)[..., :-1] * (2 * self.bound) - self.bound
        first = torch.full_like(inner[..., :1], -self.bound)
        last = torch.full_like(inner[..., :1], self.bound)
        edges = torch.cat([first, inner, last], dim=-1)
        torch._check_tensor_all(edges[..., 1:] >= edges[..., :-1])
        return edges


model = SplineBinEdges().eval()
example_args = (torch.randn(6, 4),)


class SliceWriting(nn.Module):
    """The original model, as the reference for eager results."""

    def forward(self, logits, bound=5.0):
        edges = torch.nn.functional.pad(torch.cumsum(logits.softmax(-1), -1), (1, 0)) * (2 * bound) - bound
        edges[..., 0] = -bound
        edges[..., -1] = bound
        return edges


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        package = torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))
        runner = torch._inductor.aoti_load_package(package)
        logits = torch.randn(6, 4)
        result = runner(logits)
    torch.testing.assert_close(result, model(logits))
    torch.testing.assert_close(result, SliceWriting()(logits))
    print("ok: the AOTInductor package matches eager and the slice-writing original")


if __name__ == "__main__":
    main()
