"""Select the columns with a stepped slice, which TorchScript accepts after `...`.

In (x1, y1, x2, y2) boxes the x columns are 0 and 2, every second column from 0, so
`boxes[..., 0::2]` is the same selection as `boxes[..., [0, 2]]`; the y columns are
`1::2`. A slice after an ellipsis compiles, and the in-place update writes through the
view just as the list index did. The scripted module is saved, loaded and compared with
eager on boxes of another rank.
"""
import io

import torch
from torch import nn


class ScaleBoxes(nn.Module):
    def __init__(self, width: int = 640, height: int = 480):
        super().__init__()
        self.width = width
        self.height = height

    def forward(self, boxes: torch.Tensor) -> torch.Tensor:
        boxes = boxes.clone()
        boxes[..., 0::2] *= self.width  # columns 0 and 2
        boxes[..., 1::2] *= self.height  # columns 1 and 3
        return boxes


model = ScaleBoxes().eval()
example_args = (torch.rand(2, 5, 4),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    expected = example_args[0] * torch.tensor([640.0, 480.0, 640.0, 480.0])
    torch.testing.assert_close(scripted(example_args[0]), expected)
    for boxes in (torch.rand(7, 4), torch.rand(2, 3, 6, 4)):
        torch.testing.assert_close(scripted(boxes), model(boxes))
    print("ok: the scripted box scaling saves, loads and matches eager on 2-D, 3-D and 4-D boxes")


if __name__ == "__main__":
    main()
