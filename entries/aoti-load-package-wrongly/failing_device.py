"""A CPU-compiled AOTInductor package is loaded with a device index.

`aoti_load_package(path, device_index=0)` asks for the package to be loaded on device 0
of its device type. The package was compiled for the CPU, whose runner takes no device
index, so the loader refuses it.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 16)).eval()
example_args = (torch.randn(2, 16),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "mlp.pt2")
        torch._inductor.aoti_compile_and_package(torch.export.export(model, example_args), package_path=path)
        compiled = torch._inductor.aoti_load_package(path, device_index=0)  # fails: a CPU package
        compiled(*example_args)


if __name__ == "__main__":
    main()
