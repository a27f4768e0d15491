"""expected: static-batch-size
torch.export with Dim.AUTO on a batch axis whose example size is 1: export quietly keeps the dim static at 1, and a batch of 4 is rejected at call time.
"""
import torch
from torch import nn
from torch.export import Dim

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2)).eval()
ep = torch.export.export(model, (torch.randn(1, 10),), dynamic_shapes=({0: Dim.AUTO},))
ep.module()(torch.randn(4, 10))  # the AUTO dim was 0/1-specialized, so only batch 1 is accepted
