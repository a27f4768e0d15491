"""Load each kernel only once per process: one copy of the quantized kernels, whoever brings it.

The serving process of failing.py got the quantized kernels twice: from
`import executorch.kernels.quantized` and again from the custom library that bundles
them. Here it loads only the custom library, so each kernel registers once. The program
below calls two quantized kernels, so a runtime without them could not run it; it runs,
and matches eager.

The better fix is at build time: link the custom library against executorch's shared
kernel library instead of compiling those kernels into it, so that it holds only its own.
"""
import ctypes
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  defines torch.ops.quantized_decomposed
from torch import nn
from torch.export import export


class QuantizedActivation(nn.Module):
    """A linear layer whose output goes through int8 and back, as a quantized model's would."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        q = torch.ops.quantized_decomposed.quantize_per_tensor(y, 0.05, 3, -128, 127, torch.int8)
        return torch.ops.quantized_decomposed.dequantize_per_tensor(q, 0.05, 3, -128, 127, torch.int8)


torch.manual_seed(0)  # the exporting and the serving process build the same weights
model = QuantizedActivation().eval()
example_args = (torch.randn(4, 8),)


def kernel_library(name: str) -> Path:
    import executorch

    return Path(list(executorch.__path__)[0]) / "lib" / name


def export_program(path: Path) -> None:
    """The exporting process: the quantized ops' out variants come from executorch.kernels.quantized."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.exir import to_edge

    path.write_bytes(to_edge(export(model, example_args)).to_executorch().buffer)


def serve(custom_library: str, program: str) -> None:
    """The serving process: only the custom library brings the quantized kernels."""
    from executorch.extension.pybindings import portable_lib

    before = set(portable_lib._get_operator_names())
    ctypes.CDLL(custom_library)
    added = set(portable_lib._get_operator_names()) - before
    assert "quantized_decomposed::quantize_per_tensor.out" in added, sorted(added)[:5]
    method = portable_lib._load_for_executorch(program)
    torch.testing.assert_close(method.forward(list(example_args))[0], model(*example_args))
    print(f"ok: the custom library registered {len(added)} kernels once, and the quantized program "
          "runs in the serving process and matches eager")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        custom = Path(tmp) / "libmy_kernels.so"
        shutil.copy(kernel_library("libexecutorch_kernels_quantized.so"), custom)
        program = Path(tmp) / "model.pte"
        export_program(program)
        subprocess.run([sys.executable, __file__, "--serve", str(custom), str(program)], check=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], sys.argv[3])
    else:
        main()
