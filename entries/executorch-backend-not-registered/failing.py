"""A program delegated to a backend the runtime was not built with fails to load.

The convolution block is lowered with the Vulkan partitioner: lowering runs on the
host and needs no GPU, so `to_executorch` succeeds. The ExecuTorch runtime that ships
with the `executorch` wheel registers only the backends it was built with (QNN,
OpenVINO and XNNPACK in 1.5.1), not Vulkan. Loading the method cannot find the
backend that the delegate call names, and stops.
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
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported, partitioner=[VulkanPartitioner()]).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        # fails: this runtime has no VulkanBackend registered
        Runtime.get().load_program(str(path)).load_method("forward")


if __name__ == "__main__":
    main()
