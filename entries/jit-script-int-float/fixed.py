"""Give interpolate a float scale factor, the type its TorchScript signature declares.

`scale_factor=2.0` matches the `float? scale_factor` variant, and eager code computes
the same result as with 2. The scripted module is saved, loaded and compared with eager.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class UpBlock(nn.Module):
    def __init__(self, in_ch: int = 8, out_ch: int = 4):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, 3, padding=1)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2.0, mode="nearest")  # a float, as declared
        return torch.relu(self.conv(torch.cat([x, skip], dim=1)))


model = UpBlock().eval()
example_args = (torch.randn(2, 4, 8, 8), torch.randn(2, 4, 16, 16))


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    x, skip = torch.randn(3, 4, 6, 6), torch.randn(3, 4, 12, 12)
    torch.testing.assert_close(scripted(x, skip), model(x, skip))
    print("ok: the scripted block saves, loads and matches eager on a batch of 3")


if __name__ == "__main__":
    main()
