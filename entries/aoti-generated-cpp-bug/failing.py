"""A derived dynamic dim: AOTInductor's generated C++ names a size it never declared.

The model reads its input as two stacked halves, so the input's first dim must be even,
and the export says so with a derived dim, `2 * half`. Export succeeds on every release
that has derived dims. On torch 2.6.0 AOTInductor then writes C++ that computes an
output size from the root symbol of `half` without ever declaring that symbol, and g++
stops with `error: 's1' was not declared in this scope`: a bug in torch's code
generation, not in the model or the toolchain.

Later releases declare the symbol: on torch 2.9.1 and 2.13.0 the package compiles, runs
and matches eager, and the script says that the failure does not reproduce.
"""
import atexit
import os
import shutil
import tempfile

# A cache of this run's own: every run compiles (a library cached by an earlier run
# would hide the error), and the failing and fixed scripts, run side by side, do not
# read each other's half-written files.
CACHE = tempfile.mkdtemp(prefix="inductor-")
atexit.register(shutil.rmtree, CACHE, ignore_errors=True)
os.environ["TORCHINDUCTOR_CACHE_DIR"] = CACHE

import torch  # noqa: E402  (after the cache is chosen)
from torch import nn  # noqa: E402
from torch.export import Dim  # noqa: E402


class PairProduct(nn.Module):
    """Rows 0..n-1 and n..2n-1 of the input are two halves to multiply element-wise."""

    def forward(self, x):
        first, second = x.reshape(2, x.shape[0] // 2, x.shape[1]).unbind(0)
        return first * second


model = PairProduct().eval()
example_args = (torch.randn(8, 4),)
half = Dim("half", min=1, max=64)
dynamic_shapes = {"x": {0: 2 * half}}  # the first dim is always even


def compile_and_load(exported):
    if hasattr(torch._inductor, "aoti_compile_and_package"):  # torch 2.6 and later
        package = torch._inductor.aoti_compile_and_package(exported)
        return torch._inductor.aoti_load_package(package)
    library = torch._inductor.aot_compile(exported.module(), example_args)  # torch 2.4 and 2.5
    return torch._export.aot_load(library, "cpu")


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    # fails on torch 2.6.0: error: 's1' was not declared in this scope
    runner = compile_and_load(exported)
    x = torch.randn(6, 4)  # another even size: the dim is dynamic
    with torch.no_grad():
        torch.testing.assert_close(runner(x), model(x))
    print(f"the package compiled with a derived dim and matched eager on torch {torch.__version__}: "
          "the failure does not reproduce here")


if __name__ == "__main__":
    main()
