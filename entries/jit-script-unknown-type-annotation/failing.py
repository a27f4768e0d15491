"""TorchScript rejects an annotation that names something other than a type it knows: x: torch.tensor.

`torch.tensor` (lower case) is the function that builds a tensor; the type is
`torch.Tensor`. Python never checks annotations, so the model runs in eager mode, but
TorchScript reads every annotation as a type and stops at the first name it cannot
resolve to one.
"""
import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.rnn = nn.GRU(dim, dim)

    def forward(self, x: torch.tensor) -> torch.tensor:  # shape: (frames, batch, dim)
        out, _ = self.rnn(x)
        return out[-1]


model = FrameEncoder().eval()
example_args = (torch.randn(12, 2, 16),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
