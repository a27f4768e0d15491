"""A module without its own __init__, created by exec(), fails when TorchScript reads forward's source.

The model is a Swish activation module, the kind of class that often has no `__init__`.
Scripting gets past the `__init__` check, because it inherits `nn.Module.__init__`, and
then cannot get the source of `forward`.
"""
import torch

MODEL_SOURCE = '''
import torch
from torch import nn


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)
'''

namespace = {}
exec(MODEL_SOURCE, namespace)
model = namespace["Swish"]()
example_args = (torch.randn(3, 16),)


def main():
    torch.jit.script(model)  # fails: Can't get source for <bound method Swish.forward ...>


if __name__ == "__main__":
    main()
