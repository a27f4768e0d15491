"""A TorchScript program that writes into its own intermediate result fails from its second call.

The box head follows DETR-style detectors: an MLP predicts boxes, and the reference
points are added in place to the first two coordinates, `boxes[..., :2] += reference`.
The traced module is saved and loaded, as it would be for deployment. The loaded program
runs once; from the second call on, with gradients enabled (the default outside
`torch.no_grad()`), its optimized graph rejects the in-place write.
"""
import io

import torch
from torch import nn


class BoxHead(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 4))
        self.ref = nn.Linear(dim, 2)

    def forward(self, queries):  # (batch, num_queries, dim)
        reference = torch.logit(self.ref(queries).sigmoid(), eps=1e-5)
        boxes = self.mlp(queries)
        boxes[..., :2] += reference  # in place, as many detectors write it
        return boxes.sigmoid()


model = BoxHead().eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(model, example_args), buf)
    buf.seek(0)
    program = torch.jit.load(buf)
    program(torch.randn(2, 10, 16))  # the first call works
    program(torch.randn(2, 10, 16))  # the second call fails


if __name__ == "__main__":
    main()
