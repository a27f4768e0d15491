"""A traced box decoder keeps the device it was traced on for the grid it builds.

The decoder turns per-cell predictions into boxes. It builds the grid of cell positions
in forward with `torch.arange(..., device=pred.device)`, which follows the input in eager
mode. `torch.jit.trace` only sees the device's value while tracing, so the traced code
holds `device=torch.device("cpu")`. The program is saved, loaded and called with inputs
on another device; this machine has no GPU, so the `meta` device stands in for it. The
grid is still built on the CPU, and adding it to the predictions mixes two devices.
"""
import io

import torch
from torch import nn


class BoxDecoder(nn.Module):
    """Per-cell predictions (dx, dy, log w, log h) to boxes (cx, cy, w, h) in pixels."""

    def __init__(self, stride: int = 16):
        super().__init__()
        self.stride = stride

    def forward(self, pred):  # (batch, 4, height, width)
        h, w = pred.shape[-2], pred.shape[-1]
        ys = torch.arange(h, device=pred.device, dtype=pred.dtype)  # the trace keeps device="cpu"
        xs = torch.arange(w, device=pred.device, dtype=pred.dtype)
        gy, gx = torch.meshgrid(ys, xs, indexing="ij")
        cells = torch.stack([gx, gy])  # (2, height, width): top-left corner of each cell
        centres = (cells + pred[:, :2].sigmoid()) * self.stride
        sizes = pred[:, 2:].exp() * self.stride
        return torch.cat([centres, sizes], dim=1).flatten(2).transpose(1, 2)  # (batch, cells, 4)


model = BoxDecoder().eval()
example_args = (torch.randn(2, 4, 3, 5),)


def main():
    traced = torch.jit.trace(model, example_args)  # traced on the CPU
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    buf.seek(0)
    loaded = torch.jit.load(buf)
    # Deployed on another device; meta stands in for a GPU, which this machine lacks.
    loaded(torch.randn(2, 4, 3, 5, device="meta"))  # fails: the grid is built on the CPU


if __name__ == "__main__":
    main()
