"""expected: none
Eager forward of an MLP whose first Linear expects 128 features but receives 100: a plain shape bug, no exporter involved.
"""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))
model(torch.randn(4, 100))
