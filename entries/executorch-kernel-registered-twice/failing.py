"""Two copies of one kernel library in a process: ExecuTorch aborts when the second registers its kernels.

The runtime keeps one table of kernels per process, filled by each kernel library as it
loads. `import executorch.kernels.quantized` loads executorch's quantized kernels. The
serving process then loads a custom kernel library that was built with its own copy of
those same kernels (here a copy of executorch's library under another name stands for
it). Its kernels register a second time, and the runtime aborts the whole process before
any program is loaded: no Python exception, a SIGABRT.
"""
import ctypes
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def kernel_library(name: str) -> Path:
    import executorch

    return Path(list(executorch.__path__)[0]) / "lib" / name


def serve(custom_library: str) -> None:
    """The serving process: executorch's quantized kernels, then the custom library."""
    import executorch.kernels.quantized  # noqa: F401  registers executorch's quantized kernels

    ctypes.CDLL(custom_library)  # aborts: its kernels are registered already


def main():
    with tempfile.TemporaryDirectory() as tmp:
        custom = Path(tmp) / "libmy_kernels.so"
        shutil.copy(kernel_library("libexecutorch_kernels_quantized.so"), custom)
        subprocess.run([sys.executable, __file__, "--serve", str(custom)], check=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        main()
