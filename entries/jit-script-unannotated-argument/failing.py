"""TorchScript types every unannotated argument as a Tensor, so a tuple argument cannot be unpacked.

The box post-processor receives the image size as a `(height, width)` tuple and unpacks
it. Without an annotation, TorchScript assumes `image_size` is a Tensor, and a Tensor
cannot be unpacked into two names at compile time.
"""
import torch
from torch import nn


class BoxPostprocess(nn.Module):
    """Turns normalized (cx, cy, w, h) boxes into clipped pixel corners."""

    def forward(self, boxes, image_size):
        height, width = image_size
        cx, cy, w, h = boxes.unbind(-1)
        corners = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)
        scale = torch.tensor([width, height, width, height], dtype=boxes.dtype)
        return (corners * scale).clamp(min=0)


model = BoxPostprocess().eval()
example_args = (torch.rand(2, 5, 4), (480, 640))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
