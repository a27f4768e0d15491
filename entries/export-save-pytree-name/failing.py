"""torch.export.save cannot write a program that returns torch.max's named tuple.

`x.max(dim=...)` returns `torch.return_types.max`, a named tuple of `values` and
`indices`. Export handles it like any registered pytree node and the program runs, but
saving needs a serialized name for every node type in the output spec, and this type
has none, so torch.export.save fails after a successful export.
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
        return scores.max(dim=1)  # torch.return_types.max(values, indices)


model = PeakPicker().eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    exported = torch.export.export(model, example_args)
    # fails: NotImplementedError: No registered serialization name for <class 'torch.return_types.max'>
    torch.export.save(exported, io.BytesIO())


if __name__ == "__main__":
    main()
