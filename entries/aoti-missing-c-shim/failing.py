"""An op with no C shim: AOTInductor's ABI-compatible C++ does not compile.

In ABI-compatible mode the C++ wrapper that AOTInductor generates calls every ATen op
that Inductor does not lower through torch's stable C interface, one function per op
named `aoti_torch_<device>_<op>`. Until a release adds that function, the wrapper calls
a name that does not exist and the compiler stops: `linalg_inv_ex` had none on CPU in
torch 2.4, as `cumsum`, `_embedding_bag` and `normal_functional` had none earlier.

The mode was a switch (`abi_compatible`) on the releases that could turn it off; later
releases always compile ABI-compatible and have no switch. Torch 2.13.0 calls an op
without a shim through the proxy executor instead: the script reports that the failure
does not reproduce and exits 0.
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
        # x xᵀ + I is always invertible; torch.linalg.inv becomes aten.linalg_inv_ex.
        return torch.linalg.inv(x @ x.mT + torch.eye(x.shape[-1]))


model = InverseGram().eval()
example_args = (torch.randn(3, 3),)
HAS_SWITCH = hasattr(inductor_config, "abi_compatible")  # torch 2.4.1 has it; 2.13.0 does not


def compile_and_load(exported, configs):
    if hasattr(torch._inductor, "aoti_compile_and_package"):  # not on torch 2.4.1
        package = torch._inductor.aoti_compile_and_package(exported, inductor_configs=configs)
        return torch._inductor.aoti_load_package(package)
    library = torch._inductor.aot_compile(exported.module(), example_args, options=configs)  # torch 2.4
    return torch._export.aot_load(library, "cpu")


def main():
    exported = torch.export.export(model, example_args)
    # fails on older releases: error: 'aoti_torch_cpu_linalg_inv_ex' was not declared in this scope
    runner = compile_and_load(exported, {"abi_compatible": True} if HAS_SWITCH else {})
    x = torch.randn(3, 3)
    with torch.no_grad():
        torch.testing.assert_close(runner(x), model(x))
    print(f"the ABI-compatible package compiled and matched eager on torch {torch.__version__}: "
          "the op was called without a missing shim (the failure does not reproduce here)")


if __name__ == "__main__":
    main()
