"""TorchScript does not turn an int into a float: interpolate(scale_factor=2) does not compile.

The decoder upsamples by an integer factor, as countless U-Net and FPN implementations
write it. Python and eager PyTorch accept the int. TorchScript checks the call against
interpolate's typed signatures, in which `scale_factor` is a float (or a list of
floats), and none of them takes an int.
"""
import torch
import torch.nn.functional as F
from torch import nn


class UpBlock(nn.Module):
    def __init__(self, in_ch: int = 8, out_ch: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        return torch.relu(self.conv(torch.cat([x, skip], dim=1)))


model = UpBlock().eval()
example_args = (torch.randn(2, 4, 8, 8), torch.randn(2, 4, 16, 16))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
