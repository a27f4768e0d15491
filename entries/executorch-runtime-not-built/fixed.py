"""The same program with an executorch whose compiled runtime is installed.

The pip wheel of executorch carries the compiled extension modules next to its Python
sources, so the program that `failing.py` wrote loads and runs here, and matches eager.
Afterwards it names the compiled module that did the work and the folder it came from
(`_C` on executorch 1.5.1, `_portable_lib` on 0.7.0), which is how to check an install.
"""
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import torch
from torch import nn


def main():
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 4), nn.ReLU()).eval()
    example_args = (torch.randn(2, 8),)
    program = to_edge_transform_and_lower(torch.export.export(model, example_args)).to_executorch()

    from executorch.runtime import Runtime

    with tempfile.TemporaryDirectory() as tmp:
        pte = Path(tmp) / "model.pte"
        pte.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(pte)).load_method("forward")
        x = torch.randn(2, 8)
        (got,) = method.execute([x])
    with torch.no_grad():
        torch.testing.assert_close(got, model(x))
    compiled = sorted(f"{name} from {Path(module.__file__).parent}" for name, module in sys.modules.items()
                      if name.startswith("executorch.extension.pybindings.")
                      and str(getattr(module, "__file__", "")).endswith(".so"))
    assert compiled, "the program ran, yet no compiled executorch module was loaded"
    print(f"executorch {metadata.version('executorch')}: runtime module {', '.join(compiled)}")
    print("ok: the installed runtime loaded the program, ran it and matched eager")


if __name__ == "__main__":
    main()
