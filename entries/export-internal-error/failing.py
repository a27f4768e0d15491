"""An exporter's own bug: non-strict export stops inside torch with an error about unallocated data.

The model drops the image patches that an OCR token points at, the way UDOP combines
image and text embeddings. It builds (row, col) index pairs, splits them with
`zip(*ind)` into tuples of 0-d tensors and writes `keep[rows, cols] = False`. Eager
PyTorch reads each 0-d tensor's value to build the index. Under export the tensors are
fake (shape only, no data), and torch's indexing code reads their storage anyway, so the
export fails deep inside torch with a message that names neither the model nor the line
of torch that went wrong.
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
    # fails: RuntimeError: The tensor has a non-zero number of elements, but its data is not allocated yet.
    torch.export.export(model, example_args, strict=False)


if __name__ == "__main__":
    main()
