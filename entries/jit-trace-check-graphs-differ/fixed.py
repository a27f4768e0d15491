"""Keep forward free of Python-side state: build the anchor grid on every call.

Without the cache, every trace records the same operations, so the sanity check passes.
The grid is built from `features.shape`, which the tracer records as size ops, so the
traced program also follows new feature-map sizes. The traced program is saved, loaded
and compared with eager on another batch and feature-map size.
"""
import io

import torch
from torch import nn


class AnchorHead(nn.Module):
    def __init__(self, channels: int = 8):
        super().__init__()
        self.deltas = nn.Conv2d(channels, 4, 1)

    def anchors(self, height: int, width: int) -> torch.Tensor:
        ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float32),
                                torch.arange(width, dtype=torch.float32), indexing="ij")
        return torch.stack([xs, ys, xs + 1, ys + 1], dim=-1).reshape(-1, 4)

    def forward(self, features):  # (batch, channels, height, width)
        deltas = self.deltas(features).flatten(2).transpose(1, 2)  # (batch, h*w, 4)
        return self.anchors(features.shape[2], features.shape[3]) + deltas


model = AnchorHead().eval()
example_args = (torch.randn(1, 8, 4, 5),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(model, example_args), buf)
    buf.seek(0)
    traced = torch.jit.load(buf)
    for features in (torch.randn(3, 8, 4, 5), torch.randn(2, 8, 6, 7)):
        with torch.no_grad():
            torch.testing.assert_close(traced(features), model(features))
    print("ok: the traced head passes the check, saves, loads and matches eager on 3x4x5 and 2x6x7 maps")


if __name__ == "__main__":
    main()
