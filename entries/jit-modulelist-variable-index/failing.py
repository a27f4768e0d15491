"""TorchScript indexes a ModuleList only with an integer literal, not with a loop variable.

The model is a stack of pre-norm residual MLP blocks kept in two parallel ModuleLists
(norms and blocks) and walked with `for i in range(len(self.blocks))`. Eager PyTorch runs
it; `torch.jit.script` rejects `self.norms[i]` because `i` is a variable.
"""
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
        for i in range(len(self.blocks)):
            x = x + self.blocks[i](self.norms[i](x))
        return x


model = ResidualMLP().eval()
example_args = (torch.randn(4, 16),)


def main():
    torch.jit.script(model)  # fails: self.norms[i] with a variable index


if __name__ == "__main__":
    main()
