"""An unannotated loop count is a Tensor to TorchScript, and range() only takes ints."""
import torch
from torch import nn


class Refiner(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.step = nn.Linear(dim, dim)

    def forward(self, x, num_steps):
        for _ in range(num_steps):
            x = x + torch.tanh(self.step(x))
        return x


model = Refiner().eval()
example_args = (torch.randn(2, 8), 3)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
