"""expected: dynamic-dim-specialized
torch.export with a named batch Dim but an example input whose batch is 1, so the dim is specialized to the constant 1.
"""
import torch
from torch import nn
from torch.export import Dim

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2)).eval()
batch = Dim("batch", max=128)
torch.export.export(model, (torch.randn(1, 10),), dynamic_shapes=({0: batch},))
