"""Save for the runtime that will load the file: _save_for_lite_interpreter for the lite interpreter.

`ScriptModule._save_for_lite_interpreter(path)` writes the archive with the bytecode the
lite interpreter runs. The same file still loads with `torch.jit.load`, so one file
serves a desktop check and the app. The loaded module is compared with eager on a
batch of a different size from the one it was scripted with.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class DigitClassifier(nn.Module):
    """Two small convolutions and a linear head over 28x28 grey images."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Linear(16 * 7 * 7, 10)

    def forward(self, images):
        return self.head(self.features(images).flatten(1))


model = DigitClassifier().eval()
example_args = (torch.randn(1, 1, 28, 28),)


def main():
    from torch.jit.mobile import _load_for_lite_interpreter

    scripted = torch.jit.script(model)
    images = torch.randn(4, 1, 28, 28)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "digits.ptl"
        scripted._save_for_lite_interpreter(str(path))  # adds bytecode.pkl for the lite interpreter
        lite = _load_for_lite_interpreter(str(path))
        full = torch.jit.load(str(path))
        with torch.no_grad():
            torch.testing.assert_close(lite(images), model(images))
            torch.testing.assert_close(full(images), model(images))
    print("ok: the _save_for_lite_interpreter archive loads in the lite interpreter and with torch.jit.load, "
          "and both match eager on a batch of 4")


if __name__ == "__main__":
    main()
