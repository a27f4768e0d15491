"""torch.cond records both branches in the graph and picks one at run time."""
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
        # Both branches take the same operands and return tensors of the same shape/dtype.
        return torch.cond(self.score(x).sum() > 0, self.pos_head, self.neg_head, (x,))


model = SignGatedHead().eval()
example_args = (torch.randn(2, 8),)


def main():
    exported = torch.export.export(model, example_args)
    # Inputs along +/- the score weights give a clearly positive / negative score sum,
    # so both branches are exercised.
    direction = model.score.weight.detach().expand(2, -1)
    for sign in (1.0, -1.0):
        x = sign * 100.0 * direction + 0.1 * torch.randn(2, 8)
        assert (model.score(x).sum() > 0) == (sign > 0)
        torch.testing.assert_close(exported.module()(x), model(x))
    print("ok: torch.cond export matches eager on both branches")


if __name__ == "__main__":
    main()
