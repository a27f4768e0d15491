"""The helper becomes a method, which torch.jit.script compiles along with forward."""
import io

import torch
from torch import nn


class FeatureMixer(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def gated(self, t):
        return t * torch.sigmoid(self.gate(t))

    def forward(self, x):
        return self.gated(x) + self.gated(x.flip(0))


model = FeatureMixer().eval()
example_args = (torch.randn(4, 8),)


def main():
    scripted = torch.jit.script(model)
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    x = torch.randn(6, 8)
    torch.testing.assert_close(loaded(x), model(x))
    print("ok: the scripted module, saved and loaded, matches eager")


if __name__ == "__main__":
    main()
