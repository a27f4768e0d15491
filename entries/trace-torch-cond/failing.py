"""torch.jit.trace cannot trace a model that calls torch.cond.

The model picks one of two computations from the data with `torch.cond`, the control
flow operator that torch.export captures as a single graph node. TorchScript's tracer
does not know that operator: torch.cond runs through TorchDynamo, and the tracer refuses.
"""
import torch
from torch import nn


class GatedResidual(nn.Module):
    """Applies the expensive branch only to inputs whose mean is positive."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        def heavy(x):
            return x + torch.tanh(self.proj(x))

        def light(x):
            return x * 0.5

        return torch.cond(x.mean() > 0, heavy, light, (x,))


model = GatedResidual().eval()
example_args = (torch.randn(4, 8),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
