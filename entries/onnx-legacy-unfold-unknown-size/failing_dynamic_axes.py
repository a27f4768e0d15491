"""Without any padding, declaring the unfolded dimension dynamic fails the same way."""
import io

import torch
from torch import nn


class Windows(nn.Module):
    def forward(self, x):
        return x.unfold(2, 8, 4).mean(-1)


model = Windows().eval()
example_args = (torch.randn(2, 4, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False,
                      input_names=["x"], dynamic_axes={"x": {2: "length"}})  # fails


if __name__ == "__main__":
    main()
