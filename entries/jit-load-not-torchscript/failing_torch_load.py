"""The opposite mix-up: torch.load on an archive written by torch.jit.save.

`torch.load` recognises the TorchScript archive and would hand it to `torch.jit.load`,
but since torch 2.6 it defaults to `weights_only=True`, which cannot load compiled
code, so it stops with a RuntimeError instead.
"""
import io

import torch
from torch import nn


class KeywordSpotter(nn.Module):
    """1-D convolutions over 40 mel bands, pooled over time, then a classifier."""

    def __init__(self, mels: int = 40, keywords: int = 10):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(mels, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(32, 32, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(32, keywords)

    def forward(self, features):  # (batch, mels, frames)
        return self.head(self.conv(features).mean(dim=-1))


model = KeywordSpotter().eval()
example_args = (torch.randn(2, 40, 50),)


def main():
    archive = io.BytesIO()
    torch.jit.save(torch.jit.script(model), archive)
    archive.seek(0)
    torch.load(archive)


if __name__ == "__main__":
    main()
