"""The same unflattenable input under strict export, which words the refusal differently."""
import torch
from torch import nn


class Frames:
    """A clip of video frames with a validity mask, as a data loader might batch them."""

    def __init__(self, pixels: torch.Tensor, mask: torch.Tensor):
        self.pixels, self.mask = pixels, mask


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames: Frames):
        return self.proj(frames.pixels) * frames.mask[..., None]


model = FrameEncoder().eval()
example_args = (Frames(torch.randn(2, 8, 16), torch.ones(2, 8)),)


def main():
    # fails: UserError: It looks like one of the inputs with type <class '__main__.Frames'>
    # is not supported or pytree-flattenable
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
