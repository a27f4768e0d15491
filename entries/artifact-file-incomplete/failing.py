"""torch.jit.load of an archive whose copy stopped halfway: the zip's directory is missing.

A speaker-verification network is traced and saved as a TorchScript archive, then
copied to where it is served. The copy stops halfway (a dropped download, a full disk,
a sync that was interrupted), which leaves a file with the right name and no error.
A zip archive keeps its table of contents at the end, so the loader finds none.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class SpeakerEmbedder(nn.Module):
    """Frame-level convolutions, mean and std pooling over time, then an embedding."""

    def __init__(self, mels: int = 40, dim: int = 64):
        super().__init__()
        self.frames = nn.Sequential(nn.Conv1d(mels, 128, 5, padding=2), nn.ReLU(),
                                    nn.Conv1d(128, 128, 3, padding=1), nn.ReLU())
        self.embed = nn.Linear(256, dim)

    def forward(self, features):  # (batch, mels, frames)
        h = self.frames(features)
        return self.embed(torch.cat([h.mean(dim=-1), h.std(dim=-1)], dim=-1))


model = SpeakerEmbedder().eval()
example_args = (torch.randn(2, 40, 120),)


def copy_cut_short(src: Path, dst: Path, fraction: float = 0.5) -> None:
    """What an interrupted transfer leaves behind: the first part of the file."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        fout.write(fin.read(int(src.stat().st_size * fraction)))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        built, served = Path(tmp) / "embedder.pt", Path(tmp) / "served" / "embedder.pt"
        served.parent.mkdir()
        torch.jit.save(torch.jit.trace(model, example_args), str(built))
        copy_cut_short(built, served)
        torch.jit.load(str(served))


if __name__ == "__main__":
    main()
