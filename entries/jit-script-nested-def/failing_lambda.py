"""A lambda inside forward is a nested function too, and fails the same way."""
import torch
from torch import nn


class FeatureMixer(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        gated = lambda t: t * torch.sigmoid(self.gate(t))  # noqa: E731
        return gated(x) + gated(x.flip(0))


model = FeatureMixer().eval()
example_args = (torch.randn(4, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
