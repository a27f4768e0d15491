"""expected: onnx-dataparallel
torch.onnx.export(dynamo=False) of a small conv net wrapped in nn.DataParallel (as left over from multi-GPU training).
"""
import io

import torch
from torch import nn

net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
model = nn.DataParallel(net).eval()
torch.onnx.export(model, (torch.randn(1, 3, 32, 32),), io.BytesIO(), opset_version=17, dynamo=False)
