"""A model that does not run even in eager mode on its example inputs."""
import torch

model = torch.nn.Linear(3, 4)
example_args = (torch.randn(2, 5),)
