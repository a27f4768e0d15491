"""Tensor.item() has the type `number` in TorchScript, which a size argument does not accept.

The model reads how many rows to allocate from a tensor. In Python `.item()` on an
integer tensor gives an int; TorchScript cannot know the dtype when compiling, so it
types the result as `number` (int, float or complex), and `torch.zeros` rejects it.
"""
import torch
from torch import nn


class Scatter(nn.Module):
    def forward(self, values, count):
        n = count.item()
        out = torch.zeros((n, values.shape[1]))
        return out.index_add(0, torch.arange(values.shape[0]) % n, values)


model = Scatter().eval()
example_args = (torch.randn(6, 4), torch.tensor(3))


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
