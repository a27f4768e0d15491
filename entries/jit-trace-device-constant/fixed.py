"""Build the grid in a scripted helper, so the device is read from the input on every call.

`torch.jit.script` compiles `cell_grid` from its source, so `device=pred.device` stays
an operation on the input instead of the value seen while tracing. The traced decoder
calls the compiled helper, and the saved program builds its grid wherever its input is:
on the CPU it matches eager, and on `meta` (standing in for a GPU, which this machine
lacks) it runs and returns a tensor of the right shape on that device.
"""
import io

import torch
from torch import nn


@torch.jit.script
def cell_grid(pred: torch.Tensor) -> torch.Tensor:
    """(2, height, width) grid of cell corners, on the device and dtype of `pred`."""
    h, w = pred.shape[-2], pred.shape[-1]
    ys = torch.arange(h, device=pred.device, dtype=pred.dtype)
    xs = torch.arange(w, device=pred.device, dtype=pred.dtype)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack([gx, gy])


class BoxDecoder(nn.Module):
    """Per-cell predictions (dx, dy, log w, log h) to boxes (cx, cy, w, h) in pixels."""

    def __init__(self, stride: int = 16):
        super().__init__()
        self.stride = stride

    def forward(self, pred):  # (batch, 4, height, width)
        cells = cell_grid(pred)  # compiled, not traced: the device follows pred
        centres = (cells + pred[:, :2].sigmoid()) * self.stride
        sizes = pred[:, 2:].exp() * self.stride
        return torch.cat([centres, sizes], dim=1).flatten(2).transpose(1, 2)  # (batch, cells, 4)


model = BoxDecoder().eval()
example_args = (torch.randn(2, 4, 3, 5),)


def main():
    traced = torch.jit.trace(model, example_args)
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    buf.seek(0)
    loaded = torch.jit.load(buf)
    assert 'device("cpu")' not in loaded.code, loaded.code
    pred = torch.randn(2, 4, 3, 5)
    torch.testing.assert_close(loaded(pred), model(pred))  # values: on the CPU, against eager
    out = loaded(torch.randn(2, 4, 3, 5, device="meta"))  # another device: shape and device only
    assert out.device.type == "meta" and out.shape == (2, 15, 4), (out.device, out.shape)
    print("ok: the traced decoder matches eager on cpu and builds its grid on meta when called there")


if __name__ == "__main__":
    main()
