"""expected: none
A training script reads a missing key from its config dict while building the model: a KeyError unrelated to export.
"""
import torch
from torch import nn

config = {"hidden": 32, "layers": 2, "dropout": 0.1}


def build(cfg):
    layers = [nn.Linear(cfg["hidden"], cfg["hidden"]) for _ in range(cfg["layers"])]
    return nn.Sequential(*layers, nn.Linear(cfg["hidden"], cfg["num_classes"]))


model = build(config)
torch.export.export(model, (torch.randn(2, 32),))
