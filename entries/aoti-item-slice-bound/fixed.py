"""Tell the compiler that the slice end is not negative with torch._check.

`torch._check(n >= 0)` records the fact in the exported program (as a run-time
assertion) and lets AOTInductor drop the negative-index branch whose C++ it cannot
generate. Ends past the size are still clamped, as in eager.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class KeepFirst(nn.Module):
    def forward(self, x, count):
        n = count.item()
        torch._check(n >= 0)
        return x[:n]


model = KeepFirst().eval()
example_args = (torch.randn(3, 2), torch.tensor(2))


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        package = torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))
        runner = torch._inductor.aoti_load_package(package)
        x = torch.randn(3, 2)
        for count in (0, 1, 2, 3, 5):
            args = (x, torch.tensor(count))
            torch.testing.assert_close(runner(*args), model(*args))
    print("ok: the AOTInductor package keeps the first 0, 1, 2, 3 and (clamped) 5 rows like eager")


if __name__ == "__main__":
    main()
