"""The module that an ExportedProgram gives refuses .eval() and .train().

`exported.module()` runs the captured graph, and that graph was captured in one mode:
dropout and batch norm are already written into it as they behaved during the export.
Switching the module's mode could not change them, so the module raises instead:
"Calling eval() is not supported yet." Code that puts every model into eval mode before
using it (an evaluation loop, the TorchScript-based torch.onnx.export, a serving
wrapper) meets this with a module from torch.export.
"""
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)


model = Classifier().eval()
example_args = (torch.randn(2, 8),)


def main():
    runnable = torch.export.export(model, example_args).module()
    runnable.eval()  # raises


if __name__ == "__main__":
    main()
