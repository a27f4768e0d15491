"""The legacy ONNX exporter passes kwargs by position: a keyword-only parameter after *args is never filled."""
import io

import torch
from torch import nn


class ScaledProduct(nn.Module):
    def forward(self, x, *factors, scale):
        for f in factors:
            x = x * f
        return x * scale


model = ScaledProduct().eval()
example_args = (torch.randn(4), torch.randn(4))
example_kwargs = {"scale": torch.randn(4)}


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), kwargs=example_kwargs, dynamo=False)  # fails


if __name__ == "__main__":
    main()
