"""Declaring height and width as multiples of 2 (derived Dims) exports the down/up-sampling block.

`2 * Dim("_height", min=8, max=256)` describes exactly the even sizes 16..512, which
is what the skip connection needs, so the guard found while tracing holds for every
declared value. The program is run at several even sizes and compared with eager.
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
        return x + self.up(torch.relu(self.down(x)))


model = TinyDenoiser().eval()
example_args = (torch.randn(1, 3, 64, 96),)
_height = Dim("_height", min=8, max=256)
_width = Dim("_width", min=8, max=256)
dynamic_shapes = {"x": {2: 2 * _height, 3: 2 * _width}}  # even sizes from 16 to 512


def main():
    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    sizes = [(16, 16), (64, 96), (130, 32), (512, 200)]
    for h, w in sizes:
        x = torch.randn(1, 3, h, w)
        with torch.no_grad():
            torch.testing.assert_close(exported.module()(x), model(x))
    print(f"ok: exported with height = 2*_height, width = 2*_width; matches eager at {sizes}")


if __name__ == "__main__":
    main()
