"""AOTInductor's CPU code includes <omp.h>, so the compiler must have OpenMP headers.

Every C++ file AOTInductor generates for the CPU starts from torch's `cpp_prefix.h`, whose
first include is `<omp.h>`, and is compiled with `-fopenmp`; torch 2.13 has no setting
that leaves OpenMP out. A compiler whose include path has no `omp.h` (Apple's clang
without `libomp`, or clang++ on Linux without `libomp-dev`) stops at that line.

What this script simulates: the real g++ with exactly one header missing. It writes a
`g++` wrapper that calls the system g++ with `-nostdinc` and then passes, in the same
order, every directory of g++'s own default include path, except that GCC's private
include directory (the one holding `omp.h`) is replaced by a copy made of symlinks to all
of its files but `omp.h`. Flags, libraries and every other header are unchanged; with
the full copy the same wrapper compiles, loads and matches eager. GCC words the error
`fatal error: omp.h: No such file or directory`; clang says `'omp.h' file not found`.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
example_args = (torch.randn(2, 4),)


def gxx_without_openmp_headers(folder: Path) -> str:
    """A g++ whose header search path is g++'s own, minus omp.h. Returns its path."""
    gxx = shutil.which("g++")
    verbose = subprocess.run([gxx, "-xc++", "-E", "-v", os.devnull], capture_output=True, text=True).stderr
    search = verbose.split("#include <...> search starts here:\n")[1].split("End of search list.")[0].split()
    gcc_own = os.path.realpath(subprocess.check_output([gxx, "-print-file-name=include"], text=True).strip())
    without_omp = folder / "gcc-include"
    without_omp.mkdir()
    for item in Path(gcc_own).iterdir():
        if item.name != "omp.h":
            (without_omp / item.name).symlink_to(item)
    dirs = [str(without_omp) if os.path.realpath(d) == gcc_own else d for d in search]
    wrapper = folder / "bin" / "g++"  # named g++ so that torch passes it g++'s flags
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {gxx} -nostdinc {" ".join("-isystem " + d for d in dirs)} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def main():
    exported = torch.export.export(model, example_args)
    with tempfile.TemporaryDirectory() as tmp:
        torch._inductor.config.cpp.cxx = (gxx_without_openmp_headers(Path(tmp)),)
        torch._inductor.aoti_compile_and_package(exported, package_path=str(Path(tmp) / "model.pt2"))


if __name__ == "__main__":
    main()
