"""A file that builds a network but names it `net`, not `model`."""
import torch

net = torch.nn.Linear(3, 3)
example_args = (torch.randn(1, 3),)
