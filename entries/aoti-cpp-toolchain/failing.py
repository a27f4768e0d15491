"""AOTInductor needs a working C++ compiler on the machine that compiles the model.

`aoti_compile_and_package` writes the model out as C++ and builds it into a shared library
with the compiler named by `torch._inductor.config.cpp.cxx` (by default `(None, "g++")`
on Linux, `(None, "clang++")` on macOS; the `CXX` environment variable replaces the second
name). A slim Docker image has no `g++` at all, so the export stops with
`InvalidCxxCompiler` although the model itself is fine. This script gives the compile a
`PATH` with no compiler on it, which is what such an image looks like to torch.
"""
import os
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
example_args = (torch.randn(2, 4),)


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        empty_bin = Path(tmp) / "bin"
        empty_bin.mkdir()
        os.environ["PATH"] = str(empty_bin)  # no g++ here, as in python:3.x-slim
        torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))


if __name__ == "__main__":
    main()
