"""A module class as the type of a scripted function's argument.

TorchScript knows a module's type only as a submodule of the module it is scripting, so a
free function cannot take a layer as an argument: `layer: nn.Conv1d` is refused with
`Unknown type name 'nn.Conv1d'` on torch 2.13.0.
"""
import torch
from torch import nn


def receptive_field(layer: nn.Conv1d) -> int:
    """How many input steps one output step of the layer sees."""
    return layer.dilation[0] * (layer.kernel_size[0] - 1) + 1


def main():
    torch.jit.script(receptive_field)  # RuntimeError: Unknown type name 'nn.Conv1d'


if __name__ == "__main__":
    main()
