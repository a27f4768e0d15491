"""A dim declared dynamic fails to export when the model's code pins it to one value.

Here the example size is 8, not 0 or 1, but a learned positional table of fixed
length 8 is added to the tokens, so broadcasting forces `seq == 8` and the
dynamic `seq` dimension collapses to that constant.
"""
import torch
from torch import nn


class TinyTokenEncoder(nn.Module):
    def __init__(self, max_len: int = 8, dim: int = 16, num_classes: int = 4):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(max_len, dim))
        self.head = nn.Linear(dim, num_classes)

    def forward(self, tokens):
        # tokens: (batch, seq, dim); the add only broadcasts if seq == max_len
        return self.head(tokens + self.pos_embed).mean(dim=1)


model = TinyTokenEncoder().eval()
example_args = (torch.randn(2, 8, 16),)
dynamic_shapes = {"tokens": {1: torch.export.Dim("seq", min=2, max=8)}}


def main():
    # fails: `tokens + self.pos_embed` specializes seq to the constant 8
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
