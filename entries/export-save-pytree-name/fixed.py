"""Return a plain tuple instead of torch.return_types.max.

`values, indices = scores.max(dim=1)` unpacks the named tuple inside forward, and the
program returns an ordinary tuple, which torch.export.save knows how to write: saved
and loaded again, it agrees with eager.
"""
import io

import torch
from torch import nn


class PeakPicker(nn.Module):
    """Scores each frame of a sequence and returns the best frame's score and index."""

    def __init__(self, dim: int = 16):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, frames):  # (batch, time, dim)
        scores = self.score(frames).squeeze(-1)
        values, indices = scores.max(dim=1)
        return values, indices


model = PeakPicker().eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    exported = torch.export.export(model, example_args)
    buffer = io.BytesIO()
    torch.export.save(exported, buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer)
    frames = torch.randn(2, 10, 16)
    with torch.no_grad():
        expected = model(frames)
    torch.testing.assert_close(loaded.module()(frames), expected)
    print("ok: with a plain tuple output the program saves, loads and matches eager")


if __name__ == "__main__":
    main()
