"""AOTInductor cannot compile a slice whose end is read from a tensor with .item().

`n = count.item()` gives torch.export an unbacked integer: a size known only at run
time, with no sign information. To slice `x[:n]`, AOTInductor's C++ wrapper must handle
a negative `n`, and the code it generates for that case writes the omitted start as the
Python literal `None`. The C++ compiler rejects the file.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class KeepFirst(nn.Module):
    """Keeps the first `count` rows, with `count` passed as a tensor."""

    def forward(self, x, count):
        n = count.item()
        return x[:n]


model = KeepFirst().eval()
example_args = (torch.randn(3, 2), torch.tensor(2))


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))


if __name__ == "__main__":
    main()
