"""A model compiled by AOTInductor on torch 2.4.1, loaded by a later torch.

Before torch 2.6, AOTInductor compiled CPU models in a mode that links the model's
shared library against libtorch's C++ symbols. `model-torch-2.4.1.so`, next to this
script, is this module compiled by a real torch 2.4.1 with `torch._export.aot_compile`.
It needs a c10 function that torch 2.13's libtorch no longer exports, so the dynamic
loader refuses the library before the model runs once.
"""
from pathlib import Path

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()  # the weights compiled into the .so
example_args = (torch.randn(2, 4),)
COMPILED_BY_2_4_1 = Path(__file__).with_name("model-torch-2.4.1.so")


def main():
    compiled = torch._export.aot_load(str(COMPILED_BY_2_4_1), "cpu")  # fails here: undefined symbol
    torch.testing.assert_close(compiled(*example_args), model(*example_args))


if __name__ == "__main__":
    main()
