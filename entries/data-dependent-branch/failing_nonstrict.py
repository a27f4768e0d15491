"""A Python `if` on a tensor's value cannot be captured by non-strict export either.

Same model as failing.py, exported with strict=False. Non-strict tracing runs the
real `if`, which needs the tensor's truth value; during tracing that value is an
unknown symbol (u0), so export fails on the guard `Eq(u0, 1)`.
"""
import torch
from torch import nn


class SignGatedHead(nn.Module):
    """Routes features to one of two heads depending on the sign of a summary score."""

    def __init__(self, dim: int = 8, num_classes: int = 4):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.pos_head = nn.Linear(dim, num_classes)
        self.neg_head = nn.Linear(dim, num_classes)

    def forward(self, x):
        if self.score(x).sum() > 0:  # data-dependent Python branch
            return self.pos_head(x)
        return self.neg_head(x)


model = SignGatedHead().eval()
example_args = (torch.randn(2, 8),)


def main():
    # fails: the truth value of the condition is unknown during tracing
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
