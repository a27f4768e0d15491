"""A Python `if` on a tensor's value cannot be captured by strict export.

The branch depends on the data (`if scores.sum() > 0:`), not on shapes, so a single
traced graph cannot represent both paths. TorchDynamo (strict=True) stops at the
jump with a "Data-dependent branching" graph break.
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
    # fails: Dynamo cannot trace a branch on a tensor value
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
