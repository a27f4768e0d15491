"""expected: static-batch-size
An exported CNN saved with torch.export.save, loaded back and run on a larger batch than it was exported with.
"""
import io

import torch
from torch import nn

model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 10)).eval()
buffer = io.BytesIO()
torch.export.save(torch.export.export(model, (torch.randn(8, 1, 28, 28),)), buffer)
buffer.seek(0)
loaded = torch.export.load(buffer)
loaded.module()(torch.randn(16, 1, 28, 28))
