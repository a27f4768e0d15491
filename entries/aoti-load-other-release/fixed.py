"""Compile the AOTInductor package with the torch release that will load it.

A compiled model is a build product of one torch release. What travels across releases
is the model's code and its weights; the script rebuilds the module from a state_dict,
exports and compiles it with the installed torch, loads the package with the same torch
and compares it with eager.
"""
import io
import tempfile
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
example_args = (torch.randn(2, 4),)


def main():
    weights = io.BytesIO()
    torch.save(model.state_dict(), weights)  # what to keep from the release that trained it
    weights.seek(0)
    rebuilt = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
    rebuilt.load_state_dict(torch.load(weights, weights_only=True))
    with tempfile.TemporaryDirectory() as tmp:
        path = torch._inductor.aoti_compile_and_package(
            torch.export.export(rebuilt, example_args), package_path=str(Path(tmp) / "model.pt2")
        )  # compiled by the release that loads it
        compiled = torch._inductor.aoti_load_package(path)
        x = torch.randn(2, 4)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x))
    print("ok: compiled and loaded by the same torch release, the package matches eager")


if __name__ == "__main__":
    main()
