"""A file that fails while it is imported: the user needs to see their own line."""
import torch

layer = torch.nn.Linear(3, 3)
model = torch.nn.Sequential(layer, torch.nn.Relu())
example_args = (torch.randn(1, 3),)
