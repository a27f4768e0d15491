"""torch.jit.trace's sanity check fails when forward changes the module's Python state.

The detection head turns per-location box offsets into boxes by adding them to a grid of
anchor locations. It builds the grid on the first call and keeps it in a plain
attribute, so later calls skip the work. `torch.jit.trace` checks its result by tracing
the model a second time: the first trace recorded the grid being built, the second
found it cached (a constant), so the two graphs differ and the check raises.
"""
import torch
from torch import nn


class AnchorHead(nn.Module):
    def __init__(self, channels: int = 8):
        super().__init__()
        self.deltas = nn.Conv2d(channels, 4, 1)
        self._anchors = None  # filled on the first call

    def anchors(self, height: int, width: int) -> torch.Tensor:
        if self._anchors is None or self._anchors.shape[0] != height * width:
            ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float32),
                                    torch.arange(width, dtype=torch.float32), indexing="ij")
            self._anchors = torch.stack([xs, ys, xs + 1, ys + 1], dim=-1).reshape(-1, 4)
        return self._anchors

    def forward(self, features):  # (batch, channels, height, width)
        deltas = self.deltas(features).flatten(2).transpose(1, 2)  # (batch, h*w, 4)
        return self.anchors(features.shape[2], features.shape[3]) + deltas


model = AnchorHead().eval()
example_args = (torch.randn(1, 8, 4, 5),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
