"""Annotate with the type, torch.Tensor, and the model scripts.

The scripted module is saved, loaded and compared with eager on another length and batch.
"""
import io

import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.rnn = nn.GRU(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # shape: (frames, batch, dim)
        out, _ = self.rnn(x)
        return out[-1]


model = FrameEncoder().eval()
example_args = (torch.randn(12, 2, 16),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    x = torch.randn(9, 3, 16)
    with torch.no_grad():
        torch.testing.assert_close(scripted(x), model(x))
    print("ok: annotated with torch.Tensor, the encoder scripts, saves, loads and matches eager")


if __name__ == "__main__":
    main()
