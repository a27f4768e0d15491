"""len(x) and int(x.shape[0]) give the tracer a plain Python int, which it records as a constant.

The encoder builds a default padding mask when the caller passes none, sizing it with
`len(x)`. The trace stores that mask's batch size as the number 2, so a traced call with
a batch of 3 fails where the mask meets the input.
"""
import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, frames):  # (batch, time, dim)
        valid = torch.ones(len(frames), frames.shape[1], dtype=torch.bool)  # default: all frames valid
        hidden = self.proj(frames).masked_fill(~valid[..., None], 0.0)
        return hidden.sum(dim=1) / valid.sum(dim=1, keepdim=True)


model = FrameEncoder().eval()
example_args = (torch.randn(2, 6, 8),)
alt_args = (torch.randn(3, 6, 8),)  # another batch size, for the corpus harness


def main():
    traced = torch.jit.trace(model, example_args)
    traced(torch.randn(3, 6, 8))


if __name__ == "__main__":
    main()
