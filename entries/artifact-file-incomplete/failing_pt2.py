"""torch.export.load of a .pt2 file cut short: Python's zipfile finds no archive in it.

The same interrupted copy as failing.py, with the program saved by torch.export.save.
torch.export.load opens the file with Python's zipfile module, so the error is that
module's, not the PyTorch stream reader's.
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
        torch.export.save(torch.export.export(model, example_args), str(built))
        copy_cut_short(built, served)
        torch.export.load(str(served))


if __name__ == "__main__":
    main()
