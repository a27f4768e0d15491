"""Copy what forward needs out of the config into attributes of simple types.

`self.temperature` is a float, which TorchScript stores as a module attribute. The
Namespace may stay on the module for Python code to read: TorchScript only converts the
attributes that compiled methods use. The scripted module is saved, loaded and compared
with eager.
"""
import argparse
import io

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, cfg: argparse.Namespace):
        super().__init__()
        self.cfg = cfg  # not used by forward, so scripting leaves it alone
        self.temperature = float(cfg.temperature)
        self.head = nn.Linear(cfg.dim, cfg.classes)

    def forward(self, x):
        return torch.softmax(self.head(x) / self.temperature, dim=-1)


config = argparse.Namespace(dim=16, classes=4, temperature=2.0)
model = Classifier(config).eval()
example_args = (torch.randn(2, 16),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    buf.seek(0)
    scripted = torch.jit.load(buf)
    x = torch.randn(3, 16)
    torch.testing.assert_close(scripted(x), model(x))
    print("ok: with the temperature copied into a float attribute, the scripted module matches eager")


if __name__ == "__main__":
    main()
