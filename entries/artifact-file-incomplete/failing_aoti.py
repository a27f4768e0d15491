"""Loading an AOTInductor package cut short: the C++ loader finds no zip directory.

An AOTInductor package is a zip archive too (the compiled library, its weights and
metadata). The package loader is C++ and opens it with the same zip library as
TorchScript's reader, in its own words.
"""
import tempfile
from pathlib import Path

import torch

from failing import SpeakerEmbedder, copy_cut_short

model = SpeakerEmbedder().eval()
example_args = (torch.randn(2, 40, 120),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        built, served = Path(tmp) / "embedder.pt2", Path(tmp) / "served.pt2"
        program = torch.export.export(model, example_args)
        torch._inductor.aoti_compile_and_package(program, package_path=str(built))
        copy_cut_short(built, served)
        torch._inductor.aoti_load_package(str(served))


if __name__ == "__main__":
    main()
