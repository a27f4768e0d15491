"""Fix the string when building the module, so that forward takes only tensors.

The choice the string made is a property of the exported program anyway; a small
wrapper that stores it makes that explicit, and the method is called with tensors only.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class Activation(nn.Module):
    def forward(self, x, kind: str):
        return torch.relu(x) if kind == "relu" else torch.tanh(x)


class WithKind(nn.Module):
    """Binds the string argument, exporting one program per value."""

    def __init__(self, inner: nn.Module, kind: str):
        super().__init__()
        self.inner, self.kind = inner, kind

    def forward(self, x):
        return self.inner(x, self.kind)


model = WithKind(Activation().eval(), "relu")
example_args = (torch.randn(3, 4),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(3, 4)
        (result,) = method.execute([x])
    torch.testing.assert_close(result, Activation()(x, "relu"))
    print("ok: the ExecuTorch program takes only the tensor and matches eager")


if __name__ == "__main__":
    main()
