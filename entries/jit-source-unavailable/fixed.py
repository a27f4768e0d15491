"""Defining the class in a .py file lets TorchScript read its source; tracing needs no source at all."""
import io

import torch
from torch import nn


class MLPHead(nn.Module):  # defined in this file, so inspect can find the source
    def __init__(self, dim: int = 16, num_classes: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = MLPHead().eval()
example_args = (torch.randn(3, 16),)


def roundtrip(module):
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    buffer.seek(0)
    return torch.jit.load(buffer)


def main():
    scripted = roundtrip(torch.jit.script(model))

    # If the class has to stay generated, trace it instead: tracing records the
    # operators that run and never reads the source.
    namespace = {}
    exec(
        "import torch\nfrom torch import nn\n"
        "class GeneratedHead(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(16, 4)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x).relu()\n",
        namespace,
    )
    generated = namespace["GeneratedHead"]().eval()
    traced = roundtrip(torch.jit.trace(generated, example_args))

    with torch.no_grad():
        torch.testing.assert_close(scripted(*example_args), model(*example_args))
        torch.testing.assert_close(traced(*example_args), generated(*example_args))
    print("ok: scripted file-defined model and traced exec-defined model match eager")


if __name__ == "__main__":
    main()
