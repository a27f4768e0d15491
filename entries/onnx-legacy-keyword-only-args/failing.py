"""The TorchScript-based ONNX exporter cannot call a forward that has keyword-only parameters.

The model takes its attention mask as a keyword-only argument (`forward(self, x, *,
mask)`), and it is exported with `kwargs={"mask": ...}`. The legacy exporter traces the
model by passing the keyword arguments positionally after the others, so the call fails
with `forward() takes 2 positional arguments but 3 were given`; when the forward also
has `*args`, the value lands in them and the message is `missing 1 required
keyword-only argument`.
"""
import io

import torch
from torch import nn


class MaskedSum(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, *, mask):
        return (self.proj(x) * mask.unsqueeze(-1)).sum(dim=1)


model = MaskedSum().eval()
example_args = (torch.randn(2, 5, 8),)
example_kwargs = {"mask": torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])}


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), kwargs=example_kwargs, dynamo=False)  # fails


if __name__ == "__main__":
    main()
