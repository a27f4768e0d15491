"""Give the model the root dim itself: split the halves before the export boundary.

The bug needs a derived dim on an input. Here the caller hands the model its input
already split into its two halves, shape (2, half, 4), so the export's only dynamic dim
is `half` itself, with no expression over it, and the generated C++ declares every size
it uses. The model computes the same product; only the reshape moved to the caller.
This compiles and matches eager on the releases that fail with `failing.py` and on
those that do not.
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
    """The two halves arrive stacked on a new first dim: (2, half, features)."""

    def forward(self, halves):
        first, second = halves.unbind(0)
        return first * second


def as_halves(x):
    """What the model did inside before: rows 0..n-1 and n..2n-1 become two halves."""
    return x.reshape(2, x.shape[0] // 2, x.shape[1])


model = PairProduct().eval()
example_args = (as_halves(torch.randn(8, 4)),)
half = Dim("half", min=1, max=64)
dynamic_shapes = {"halves": {1: half}}  # the root dim, not 2 * half


def compile_and_load(exported):
    if hasattr(torch._inductor, "aoti_compile_and_package"):  # torch 2.6 and later
        package = torch._inductor.aoti_compile_and_package(exported)
        return torch._inductor.aoti_load_package(package)
    library = torch._inductor.aot_compile(exported.module(), example_args)  # torch 2.4 and 2.5
    return torch._export.aot_load(library, "cpu")


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    runner = compile_and_load(exported)
    x = torch.randn(6, 4)  # another even size: the dim is dynamic
    with torch.no_grad():
        torch.testing.assert_close(runner(as_halves(x)), model(as_halves(x)))
    print(f"ok: the package compiled with the root dim, loaded, and matched eager on torch {torch.__version__}")


if __name__ == "__main__":
    main()
