"""expected: export-non-module
torch.export.export called on a lambda that wraps a model call.
"""
import torch
from torch import nn

model = nn.Linear(4, 4).eval()
torch.export.export(lambda x: model(x).softmax(-1), (torch.randn(2, 4),))
