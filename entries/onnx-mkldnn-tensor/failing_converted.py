"""A model converted with `torch.utils.mkldnn.to_mkldnn` cannot be traced for ONNX either.

The utility swaps each `Conv2d`, `Linear` and `BatchNorm` for an `MkldnnConv2d`-style
replacement, a scripted module that holds its weight in the MKL-DNN layout. Those
replacements are TorchScript modules, not submodules that the tracer can enter, so the
legacy exporter stops at the first one: `Tried to trace
<__torch__.torch.utils.mkldnn.MkldnnConv2d object at 0x...> but it is not part of the
active trace`.
"""
import io

import torch
from torch import nn
from torch.utils import mkldnn as mkldnn_utils

model = mkldnn_utils.to_mkldnn(nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3)).eval())
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)  # fails


if __name__ == "__main__":
    main()
