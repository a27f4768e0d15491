"""Iterating over the ModuleLists themselves (zip, enumerate) lets TorchScript unroll the loop."""
import io

import torch
from torch import nn


class ResidualMLP(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 3):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.blocks = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)) for _ in range(depth)]
        )

    def forward(self, x):
        for norm, block in zip(self.norms, self.blocks):
            x = x + block(norm(x))
        return x


model = ResidualMLP().eval()
example_args = (torch.randn(4, 16),)


def main():
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    with torch.no_grad():
        torch.testing.assert_close(loaded(*example_args), model(*example_args))
    print("ok: scripted model matches eager")


if __name__ == "__main__":
    main()
