"""Write what the loader expects: torch.jit.save a scripted (or traced) module, then torch.jit.load it.

`torch.jit.load` reads only archives written by `torch.jit.save` (or `.save()` on a
ScriptModule). Convert the model first, save the archive, and load that. A
`torch.save` checkpoint stays the way to resume training in Python: load it with
`torch.load` (or load its state_dict into the class) and convert from there.
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
    torch.jit.save(torch.jit.script(model), archive)  # a TorchScript archive
    archive.seek(0)
    loaded = torch.jit.load(archive)
    features = torch.randn(3, 40, 71)
    with torch.no_grad():
        torch.testing.assert_close(loaded(features), model(features))
    print("ok: the torch.jit.save archive loads with torch.jit.load and matches eager on 3 clips of 71 frames")


if __name__ == "__main__":
    main()
