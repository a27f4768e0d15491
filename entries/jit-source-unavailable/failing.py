"""TorchScript compiles from source text, so a module class created by exec() cannot be scripted.

The model is a small MLP head whose class is built from a code string (as code
generators, `python -c` one-liners and the plain interactive interpreter do). Python
keeps no source file for it, and `torch.jit.script` fails when it asks `inspect` for
the source of `__init__`.
"""
import torch

MODEL_SOURCE = '''
import torch
from torch import nn


class MLPHead(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
'''

namespace = {}
exec(MODEL_SOURCE, namespace)  # the class exists, its source file does not
model = namespace["MLPHead"]().eval()
example_args = (torch.randn(3, 16),)


def main():
    torch.jit.script(model)  # fails: inspect cannot find the source of MLPHead.__init__


if __name__ == "__main__":
    main()
