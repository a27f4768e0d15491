"""torch._dynamo.assume_constant_result does not help under non-strict torch.export.

This is PyTorch's ExportDB example `assume_constant_result`. The decorator asks
TorchDynamo to treat the method's result as a constant, but `torch.export.export` traces
without TorchDynamo by default (strict=False), so `y.int().item()` stays a run-time value
and AOTInductor hits the same uncompilable slice.
"""
import tempfile
from pathlib import Path

import torch
import torch._dynamo as torchdynamo
from torch import nn


class AssumeConstantResult(nn.Module):
    @torchdynamo.assume_constant_result
    def get_item(self, y):
        return y.int().item()

    def forward(self, x, y):
        return x[: self.get_item(y)]


model = AssumeConstantResult().eval()
example_args = (torch.randn(3, 2), torch.tensor(4))


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))


if __name__ == "__main__":
    main()
