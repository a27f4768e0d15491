"""An ExecuTorch method cannot be called with a string argument.

torch.export treats a `str` argument as a constant: the branch it selects is baked into
the graph, and the argument stays only as an empty input slot. The ExecuTorch runtime's
Python bindings accept tensors and a few scalar types as inputs, so calling the method
with the same arguments as the model fails on the string.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class Activation(nn.Module):
    """Applies the activation named by `kind`."""

    def forward(self, x, kind: str):
        return torch.relu(x) if kind == "relu" else torch.tanh(x)


model = Activation().eval()
example_args = (torch.randn(3, 4), "relu")


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        method.execute(list(example_args))


if __name__ == "__main__":
    main()
