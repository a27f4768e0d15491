"""Letting the ModuleList drive the loop (enumerate, then index the list) gives TorchScript a static length."""
import io
from typing import List

import torch
from torch import nn


class ConvertLayer(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), out_channels: int = 8):
        super().__init__()
        self.convert = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])

    def forward(self, xs: List[torch.Tensor]) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        for i, conv in enumerate(self.convert):  # unrolled: one step per conv
            out.append(torch.relu(conv(xs[i])))
        return out


model = ConvertLayer().eval()
example_args = ([torch.randn(1, 8, 32, 32), torch.randn(1, 16, 16, 16), torch.randn(1, 32, 8, 8)],)


def main():
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    with torch.no_grad():
        torch.testing.assert_close(loaded(*example_args), model(*example_args))
    print("ok: scripted model matches eager on all three feature maps")


if __name__ == "__main__":
    main()
