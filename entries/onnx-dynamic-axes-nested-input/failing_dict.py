"""A dict of tensors named once, as a whole, fails the same conversion.

The model takes its batch as one dict. `input_names=["batch"]` and
`dynamic_axes={"batch": {0: "n"}}` give one name for the two tensors the dict holds, so the
dynamo-based exporter cannot turn the axes into `dynamic_shapes`. (The empty dict at the
end of the arguments keeps `torch.onnx.export` from taking the batch dict as keyword
arguments.)
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class PairScorer(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, batch):
        return (self.proj(batch["query"]) * batch["key"]).sum(dim=-1)


model = PairScorer().eval()
example_args = ({"query": torch.randn(4, 16), "key": torch.randn(4, 16)}, {})


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "scorer.onnx"), dynamo=True,
                          input_names=["batch"], output_names=["score"],
                          dynamic_axes={"batch": {0: "n"}})  # fails


if __name__ == "__main__":
    main()
