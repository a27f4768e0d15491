"""Write the same computation without the pattern that trips the exporter.

Index with two integer tensors (`ind[:, 0]`, `ind[:, 1]`) instead of tuples of 0-d
tensors. That is one `index_put` on tensors, which export traces without reading any
data, and it selects the same elements as eager did.
"""
import torch
from torch import nn


class DropPointedPatches(nn.Module):
    """Zero out the image tokens that each text token's box points at."""

    def forward(self, tokens, points):  # tokens (batch, patches, dim), points (batch, n) long
        batch, n = points.shape
        keep = torch.ones(tokens.shape[:2], dtype=torch.bool)
        rows_of = torch.arange(batch)[:, None].expand(batch, n)
        ind = torch.stack([rows_of, points], dim=-1).flatten(0, 1)
        keep[ind[:, 0], ind[:, 1]] = False
        return tokens * keep[..., None]


class FailingVersion(DropPointedPatches):
    def forward(self, tokens, points):
        batch, n = points.shape
        keep = torch.ones(tokens.shape[:2], dtype=torch.bool)
        rows_of = torch.arange(batch)[:, None].expand(batch, n)
        ind = torch.stack([rows_of, points], dim=-1).flatten(0, 1)
        rows, cols = zip(*ind)
        keep[rows, cols] = False
        return tokens * keep[..., None]


model = DropPointedPatches().eval()
example_args = (torch.randn(2, 16, 8), torch.tensor([[1, 5, 7], [0, 2, 15]]))


def main():
    exported = torch.export.export(model, example_args, strict=False)
    other = (torch.randn(2, 16, 8), torch.tensor([[3, 3, 9], [14, 0, 6]]))
    for args in (example_args, other):
        got = exported.module()(*args)
        torch.testing.assert_close(got, model(*args))
        # and the rewrite computes what the failing model computes in eager
        torch.testing.assert_close(got, FailingVersion()(*args))
    print("ok: indexing with tensors exports and matches eager on new points")


if __name__ == "__main__":
    main()
