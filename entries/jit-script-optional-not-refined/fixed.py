"""Copy the attribute into a local variable and test the local: TorchScript refines locals.

`speaker = self.speaker` gives a local `Optional[Tensor]`; inside
`if speaker is not None:` TorchScript knows it is a Tensor, so the addition compiles.
Eager behaviour is unchanged. The scripted module is saved, loaded and compared with
eager with and without a speaker set.
"""
import io
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
        speaker = self.speaker  # a local can be refined, an attribute cannot
        if speaker is not None:
            x = x + speaker
        return torch.relu(self.proj(x))


model = SpeakerAdaptedLayer().eval()
model.set_speaker(torch.randn(16))
example_args = (torch.randn(2, 10, 16),)


def roundtrip(module):
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(module), buf)
    buf.seek(0)
    return torch.jit.load(buf)


def main():
    x = torch.randn(3, 7, 16)
    plain = SpeakerAdaptedLayer().eval()  # no speaker set: the attribute stays None
    with torch.no_grad():
        torch.testing.assert_close(roundtrip(model)(x), model(x))
        torch.testing.assert_close(roundtrip(plain)(x), plain(x))
    print("ok: the scripted layer saves, loads and matches eager with and without a speaker")


if __name__ == "__main__":
    main()
