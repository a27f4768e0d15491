"""TorchScript does not narrow an Optional attribute with `if self.x is not None`.

The speaker-adapted layer keeps an optional speaker embedding on the module: `None`
until `set_speaker` is called. `if self.speaker is not None:` tells a reader that the
embedding exists inside the branch, but TorchScript only narrows (refines) local
variables and arguments, never module attributes, so inside the branch
`self.speaker` is still `Optional[Tensor]` and `x + self.speaker` does not type-check.
"""
from typing import Optional

import torch
from torch import nn


class SpeakerAdaptedLayer(nn.Module):
    speaker: Optional[torch.Tensor]

    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.speaker = None

    def set_speaker(self, embedding: torch.Tensor):
        self.speaker = embedding

    def forward(self, x):  # (batch, frames, dim)
        if self.speaker is not None:
            x = x + self.speaker
        return torch.relu(self.proj(x))


model = SpeakerAdaptedLayer().eval()
model.set_speaker(torch.randn(16))
example_args = (torch.randn(2, 10, 16),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
