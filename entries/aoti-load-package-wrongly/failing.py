"""A package holding two AOTInductor models is loaded without naming the model.

An encoder and a decoder are compiled separately and packaged into one `.pt2` under the
names "encoder" and "decoder". `aoti_load_package(path)` loads the model called
"model", the name a single-model package uses; this package has none, and the loader
stops, listing the models it does have.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn
from torch._inductor.package import package_aoti

encoder = nn.Sequential(nn.Linear(16, 8), nn.ReLU()).eval()
decoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh()).eval()
model = nn.Sequential(encoder, decoder).eval()  # what the two packaged models compute together
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
        compiled = torch._inductor.aoti_load_package(path)  # fails: no model named "model" in it
        compiled(*example_args)


if __name__ == "__main__":
    main()
