"""Compile where the wrapper calls ATen itself, or on a release that needs no shim.

On the releases with an `abi_compatible` switch, turning it off (the default on CPU
on torch 2.4.1) makes the generated wrapper call ATen's C++ API directly, so no
shim is needed; the library is then tied to the exact torch build that compiled it. On
releases without the switch (torch 2.13.0), an op without a shim goes through the proxy
executor and the default compile works.
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
import torch._inductor.config as inductor_config  # noqa: E402
from torch import nn  # noqa: E402


class InverseGram(nn.Module):
    def forward(self, x):
        return torch.linalg.inv(x @ x.mT + torch.eye(x.shape[-1]))


model = InverseGram().eval()
example_args = (torch.randn(3, 3),)
HAS_SWITCH = hasattr(inductor_config, "abi_compatible")


def compile_and_load(exported, configs):
    if hasattr(torch._inductor, "aoti_compile_and_package"):
        package = torch._inductor.aoti_compile_and_package(exported, inductor_configs=configs)
        return torch._inductor.aoti_load_package(package)
    library = torch._inductor.aot_compile(exported.module(), example_args, options=configs)
    return torch._export.aot_load(library, "cpu")


def main():
    exported = torch.export.export(model, example_args)
    runner = compile_and_load(exported, {"abi_compatible": False} if HAS_SWITCH else {})
    for x in (example_args[0], torch.randn(3, 3)):
        with torch.no_grad():
            torch.testing.assert_close(runner(x), model(x))
    mode = "with abi_compatible off" if HAS_SWITCH else "ABI-compatible (the only mode)"
    print(f"ok: compiled {mode} on torch {torch.__version__}, loaded, and matched eager")


if __name__ == "__main__":
    main()
