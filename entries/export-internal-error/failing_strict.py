"""The same exporter bug seen through strict export (TorchDynamo).

Dynamo runs the `keep[rows, cols] = False` node on fake tensors to learn its output and
hits the same internal error, which it wraps in a TorchRuntimeError ("RuntimeError when
making fake tensor call").
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
        rows, cols = zip(*ind)  # tuples of 0-d tensors
        keep[rows, cols] = False
        return tokens * keep[..., None]


model = DropPointedPatches().eval()
example_args = (torch.randn(2, 16, 8), torch.tensor([[1, 5, 7], [0, 2, 15]]))


def main():
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
