"""Always assigning the attribute (nn.Identity when unused) gives TorchScript something to compile."""
import io

import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, in_ch: int, out_ch: int):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(),
            nn.Conv2d(out_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch),
        )
        # nn.Identity has no parameters, so the state_dict keys are the same as before.
        self.shortcut = nn.Conv2d(in_ch, out_ch, 1) if in_ch != out_ch else nn.Identity()

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


model = ResidualBlock(8, 8).eval()
example_args = (torch.randn(1, 8, 16, 16),)


def main():
    for block, x in ((model, example_args[0]), (ResidualBlock(4, 8).eval(), torch.randn(1, 4, 16, 16))):
        buffer = io.BytesIO()
        torch.jit.save(torch.jit.script(block), buffer)
        buffer.seek(0)
        loaded = torch.jit.load(buffer)
        with torch.no_grad():
            torch.testing.assert_close(loaded(x), block(x))
    print("ok: scripted blocks (with and without a projection) match eager")


if __name__ == "__main__":
    main()
