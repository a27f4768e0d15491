"""Annotate every argument that is not a Tensor; TorchScript then compiles it with its real type.

`image_size: Tuple[int, int]` tells the compiler the argument is a pair of ints, so the
unpacking compiles. The scripted module is saved, loaded and compared with eager on
another batch and image size.
"""
import io
from typing import Tuple

import torch
from torch import nn


class BoxPostprocess(nn.Module):
    """Turns normalized (cx, cy, w, h) boxes into clipped pixel corners."""

    def forward(self, boxes, image_size: Tuple[int, int]):
        height, width = image_size
        cx, cy, w, h = boxes.unbind(-1)
        corners = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)
        scale = torch.tensor([width, height, width, height], dtype=boxes.dtype)
        return (corners * scale).clamp(min=0)


model = BoxPostprocess().eval()
example_args = (torch.rand(2, 5, 4), (480, 640))


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    boxes = torch.rand(3, 7, 4)
    torch.testing.assert_close(scripted(boxes, (600, 800)), model(boxes, (600, 800)))
    print("ok: with image_size annotated as Tuple[int, int], the scripted module matches eager")


if __name__ == "__main__":
    main()
