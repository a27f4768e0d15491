"""Delegate to a backend that the runtime you deploy with has registered.

`_get_registered_backend_names()` lists the backends compiled into the runtime; the
wheel's runtime has XNNPACK, so the same block lowered with the XNNPACK partitioner
loads, runs and matches eager. (To run a Vulkan program, use a runtime built with the
Vulkan backend linked in.)
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


model = ConvBlock().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings.portable_lib import _get_registered_backend_names
    from executorch.runtime import Runtime

    assert "XnnpackBackend" in _get_registered_backend_names(), _get_registered_backend_names()
    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        x = torch.randn(1, 3, 16, 16)
        (got,) = method.execute([x])
    with torch.no_grad():
        torch.testing.assert_close(got, model(x), rtol=1e-4, atol=1e-5)
    print("ok: delegated to XNNPACK, which the runtime registers, the program loads and matches eager")


if __name__ == "__main__":
    main()
