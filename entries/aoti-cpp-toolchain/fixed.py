"""Compile on a machine with a complete C++ toolchain.

With g++ installed (Debian/Ubuntu: `apt-get install g++` or `build-essential`; its
`libgcc-*-dev` dependency ships `omp.h`), torch's default compiler search finds it, the
generated C++ builds, and the package loads and runs. On macOS the same holds for Apple's
clang++ once `brew install libomp` (or `conda install llvm-openmp`) provides OpenMP.
"""
import shutil
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
example_args = (torch.randn(2, 4),)


def main():
    assert shutil.which("g++"), "install a C++ compiler first: apt-get install g++"
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        package = torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))
        runner = torch._inductor.aoti_load_package(package)
        for x in (example_args[0], torch.randn(2, 4)):
            with torch.no_grad():
                torch.testing.assert_close(runner(x), model(x))
    print("ok: with g++ and its OpenMP headers installed, the package compiles, loads and matches eager")


if __name__ == "__main__":
    main()
