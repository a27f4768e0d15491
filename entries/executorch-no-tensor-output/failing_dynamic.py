"""With the width declared dynamic, the output is a symbolic int, and lowering fails the same way."""
import torch
from torch import nn


class ScalarOutput(nn.Module):
    def forward(self, x):
        return x.shape[1] + 1


model = ScalarOutput().eval()
example_args = (torch.randn(3, 2),)
dynamic_shapes = {"x": {1: torch.export.Dim("width", min=2, max=16)}}


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    to_edge_transform_and_lower(exported).to_executorch()


if __name__ == "__main__":
    main()
