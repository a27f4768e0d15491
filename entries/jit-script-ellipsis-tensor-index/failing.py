"""TorchScript cannot compile an index list after an ellipsis: boxes[..., [0, 2]].

The detection head's post-processing scales normalized (x1, y1, x2, y2) boxes to pixels.
It picks the two x columns with `boxes[..., [0, 2]]` and the two y columns with
`boxes[..., [1, 3]]`, which works for boxes of any rank in eager mode. TorchScript
supports `...` followed by integers and slices, but not followed by a list or a tensor
of indices (advanced indexing), and refuses to compile the method.
"""
import torch
from torch import nn


class ScaleBoxes(nn.Module):
    def __init__(self, width: int = 640, height: int = 480):
        super().__init__()
        self.width = width
        self.height = height

    def forward(self, boxes: torch.Tensor) -> torch.Tensor:
        boxes = boxes.clone()
        boxes[..., [0, 2]] *= self.width
        boxes[..., [1, 3]] *= self.height
        return boxes


model = ScaleBoxes().eval()
example_args = (torch.rand(2, 5, 4),)  # (batch, boxes, x1 y1 x2 y2), normalized


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
