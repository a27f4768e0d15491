"""A model built on the meta device keeps a non-persistent buffer there after loading.

Building a model under `torch.device("meta")` and then loading a checkpoint with
`load_state_dict(..., assign=True)` is a common way to skip random initialisation. The
checkpoint holds the parameters but not the rotary embedding's `inv_freq`, a buffer
registered with `persistent=False`; it stays a meta tensor. Export then mixes it with
the CPU input and stops with a device mismatch between cpu and meta.
"""
import torch
from torch import nn


class RotaryProjection(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):  # (batch, tokens, dim)
        angles = torch.arange(x.shape[1], dtype=torch.float32)[:, None] * self.inv_freq
        cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return self.proj(x * cos + rotated * sin)


checkpoint = RotaryProjection().state_dict()  # parameters only: inv_freq is not saved
with torch.device("meta"):
    model = RotaryProjection()
model.load_state_dict(checkpoint, assign=True)
model.eval()
example_args = (torch.randn(2, 6, 16),)


def main():
    torch.export.export(model, example_args)  # fails: inv_freq is still on the meta device


if __name__ == "__main__":
    main()
