"""torch.jit.load cannot read a file written by torch.save: it is not a TorchScript archive.

The keyword spotter is trained in Python and saved with `torch.save(model, ...)`, the
usual checkpoint call. A deployment script (or a C++/Java runtime built on libtorch)
then opens the file with `torch.jit.load`. Both formats are zip archives, so the loader
gets as far as opening it, but a pickled nn.Module has no compiled code and none of the
records a TorchScript archive must contain, starting with `constants.pkl`.
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
    checkpoint = io.BytesIO()
    torch.save(model, checkpoint)  # a pickled Python module, not TorchScript
    checkpoint.seek(0)
    torch.jit.load(checkpoint)


if __name__ == "__main__":
    main()
