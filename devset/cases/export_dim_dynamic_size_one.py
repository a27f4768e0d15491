"""expected: dynamic-dim-specialized
torch.export with Dim.DYNAMIC on a batch axis whose example size is 1; export 0/1-specializes it and rejects the hint.
"""
import torch
from torch import nn
from torch.export import Dim

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2)).eval()
torch.export.export(model, (torch.randn(1, 10),), dynamic_shapes=({0: Dim.DYNAMIC},))
