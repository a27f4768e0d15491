"""The dynamo-based ONNX exporter fails on the same model while torch.export traces it.

`torch.export` traces with fake tensors, and `aten::to_mkldnn` has no fake (meta)
implementation. The exporter's first step fails, and the summary it prints names only
the last error, `Cannot access storage of OpaqueTensorImpl`: an MKL-DNN tensor is
opaque, with no strided storage to read.
"""
import torch
from torch import nn


class MkldnnConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3))

    def forward(self, x):
        return self.body(x.to_mkldnn()).to_dense()


model = MkldnnConvNet().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    torch.onnx.export(model, example_args, dynamo=True)  # fails


if __name__ == "__main__":
    main()
