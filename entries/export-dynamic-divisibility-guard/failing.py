"""A stride-2 down/up-sampling block only works for even sizes, but its dims are declared for all sizes.

The denoiser halves the image with a stride-2 convolution, doubles it again with a
transposed convolution and adds the result to its input (a U-Net skip connection).
The doubled size, 2 * ((height - 1) // 2 + 1), equals height only when height is
even, so tracing with a symbolic height adds that condition as a guard, and export
rejects a declared range of 16..512 that also holds odd sizes.
"""
import torch
from torch import nn
from torch.export import Dim


class TinyDenoiser(nn.Module):
    def __init__(self, channels: int = 3, hidden: int = 8):
        super().__init__()
        self.down = nn.Conv2d(channels, hidden, kernel_size=3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(hidden, channels, kernel_size=2, stride=2)

    def forward(self, x):
        return x + self.up(torch.relu(self.down(x)))  # skip connection: sizes must agree


model = TinyDenoiser().eval()
example_args = (torch.randn(1, 3, 64, 96),)
dynamic_shapes = {"x": {2: Dim("height", min=16, max=512), 3: Dim("width", min=16, max=512)}}


def main():
    # fails: odd heights and widths in 16..512 would break the skip connection
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
