"""Assigning a tensor to an attribute that was None at scripting time is refused too.

This forward never reads the attribute before writing it, so no method is called on
`NoneType`; the assignment itself is the error: `Wrong type for attribute assignment.
Expected NoneType but got Tensor`.
"""
import torch
from torch import nn


class LastScores(nn.Module):
    """Keeps the last scores it saw, for inspection after the call."""

    def __init__(self):
        super().__init__()
        self.last = None

    def forward(self, scores):
        self.last = scores.detach()
        return torch.softmax(scores, dim=-1)


model = LastScores().eval()
example_args = (torch.randn(2, 5),)


def main():
    torch.jit.script(model)  # RuntimeError: Wrong type for attribute assignment. Expected NoneType ...


if __name__ == "__main__":
    main()
