"""expected: onnx-unsupported-opset
torch.onnx.export(dynamo=False) at opset 17 of a patch-merging layer that uses F.fold (aten::col2im, which needs opset 18).
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class PatchMerge(nn.Module):
    def forward(self, patches):  # (batch, C * 2 * 2, L)
        return F.fold(patches, output_size=(8, 8), kernel_size=2, stride=2)


torch.onnx.export(PatchMerge(), (torch.randn(1, 12, 16),), io.BytesIO(), opset_version=17, dynamo=False)
