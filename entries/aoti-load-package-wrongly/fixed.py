"""Load each model of a multi-model package by its name.

`torch._inductor.package.load_package(path, "encoder")` and `load_package(path,
"decoder")` return the two compiled models; chained, they match the eager encoder and
decoder. A package with one model, saved by `aoti_compile_and_package`, is loaded
without a name (and, compiled for the CPU, without a device index).
"""
import tempfile
from pathlib import Path

import torch
from torch import nn
from torch._inductor.package import load_package, package_aoti

encoder = nn.Sequential(nn.Linear(16, 8), nn.ReLU()).eval()
decoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh()).eval()
model = nn.Sequential(encoder, decoder).eval()
example_args = (torch.randn(2, 16),)


def compile_and_package(path: str) -> None:
    """Compile each part with AOTInductor and put both in one package, under their names."""
    files = {}
    for name, part, args in (("encoder", encoder, example_args), ("decoder", decoder, (torch.randn(2, 8),))):
        exported = torch.export.export(part, args)
        files[name] = torch._inductor.aot_compile(exported.module(), args, options={"aot_inductor.package": True})
    package_aoti(path, files)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "autoencoder.pt2")
        compile_and_package(path)
        compiled_encoder = load_package(path, "encoder")
        compiled_decoder = load_package(path, "decoder")
        x = torch.randn(2, 16)
        with torch.no_grad():
            torch.testing.assert_close(compiled_decoder(compiled_encoder(x)), model(x))
    print("ok: each model loaded by name; encoder then decoder match eager")


if __name__ == "__main__":
    main()
