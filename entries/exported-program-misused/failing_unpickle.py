"""A pickled ExportedProgram, unpickled without the weights_only guard, fails to rebuild.

Unpickling an fx GraphModule rebuilds it by tracing its generated code again, with the
tracer class recorded at pickling time. For an exported program that class is export's
own module-stack tracer, which the unpickler cannot build: on torch 2.13.0 it stops with
a TypeError about the `scope_root` argument that `_ModuleStackTracer.__init__` lacks.
Pickling is not a way to store an exported program.
"""
import pickle

import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return torch.relu(x * self.weight)


model = Scale().eval()
example_args = (torch.randn(2, 4),)


def main():
    exported = torch.export.export(model, example_args)
    data = pickle.dumps(exported)
    pickle.loads(data)  # TypeError: _ModuleStackTracer.__init__() missing ... 'scope_root'


if __name__ == "__main__":
    main()
