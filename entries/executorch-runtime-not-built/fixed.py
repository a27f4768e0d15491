"""The same program with an executorch whose compiled runtime is installed.

The pip wheel of executorch carries the compiled extension modules next to its Python
sources, so the program that `failing.py` wrote loads and runs here, and matches eager.
Before loading anything, the script checks the way a user can: does Python find
`executorch.extension.pybindings._C`, and in which installed package?
"""
import importlib.util
import tempfile
from importlib import metadata
from pathlib import Path

import torch
from torch import nn


def main():
    from executorch.exir import to_edge_transform_and_lower

    spec = importlib.util.find_spec("executorch.extension.pybindings._C")
    assert spec is not None, "executorch's compiled runtime is not installed"
    print(f"runtime module: {Path(spec.origin).name} (executorch {metadata.version('executorch')})")

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
    print("ok: the installed runtime loaded the program, ran it and matched eager")


if __name__ == "__main__":
    main()
