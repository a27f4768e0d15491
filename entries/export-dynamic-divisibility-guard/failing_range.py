"""A dynamic dim declared wider than the model supports: the generated guard is a narrower range.

The encoder adds a learned positional table of 32 rows, sliced to the sequence
length. For sequences longer than 32 the slice stops at 32 rows and the addition
cannot broadcast, so tracing with a symbolic `seq` adds the guard seq <= 32, and
export rejects the declared maximum of 64.
"""
import torch
from torch import nn
from torch.export import Dim


class TinyTokenEncoder(nn.Module):
    def __init__(self, max_len: int = 32, dim: int = 16, num_classes: int = 4):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.randn(max_len, dim))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, tokens):
        # tokens: (batch, seq, dim); only seq <= max_len has enough positions
        return self.head(tokens + self.pos_embed[: tokens.shape[1]]).mean(dim=1)


model = TinyTokenEncoder().eval()
example_args = (torch.randn(2, 10, 16),)
dynamic_shapes = {"tokens": {1: Dim("seq", min=2, max=64)}}


def main():
    # fails: the model only handles seq <= 32, the declaration says up to 64
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
