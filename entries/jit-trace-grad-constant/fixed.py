"""Compute the cached tensor without autograd and register it as a buffer.

Under `torch.no_grad()` the inverse no longer requires grad, and as a (non-persistent)
buffer it is part of the module's state: the tracer reads it as a module attribute
instead of freezing it into the graph. The traced program is saved, loaded and compared
with eager on another batch and size.
"""
import io

import torch
from torch import nn


class InvertibleConv1x1(nn.Module):
    def __init__(self, channels: int = 4):
        super().__init__()
        self.weight = nn.Parameter(torch.linalg.qr(torch.randn(channels, channels))[0])
        self.register_buffer("weight_inv", None, persistent=False)

    def store_inverse(self):
        with torch.no_grad():  # an inference-time cache: no autograd history
            self.weight_inv = torch.inverse(self.weight)

    def forward(self, z):
        weight = self.weight_inv if self.weight_inv is not None else self.weight
        channels = weight.shape[0]
        return nn.functional.conv2d(z, weight.view(channels, channels, 1, 1))


model = InvertibleConv1x1().eval()
model.store_inverse()
example_args = (torch.randn(1, 4, 8, 8),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(model, example_args), buf)
    buf.seek(0)
    traced = torch.jit.load(buf)
    z = torch.randn(3, 4, 5, 7)
    with torch.no_grad():
        torch.testing.assert_close(traced(z), model(z))
    print("ok: the traced flow step saves, loads and matches eager on a batch of 3, 5x7")


if __name__ == "__main__":
    main()
