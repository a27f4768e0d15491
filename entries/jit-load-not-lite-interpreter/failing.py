"""The lite interpreter (PyTorch Mobile) cannot read an archive written by torch.jit.save.

The digit classifier is scripted and saved with `scripted.save(path)`, the usual
TorchScript call, and the file is copied into an Android or iOS app. The app's runtime is
the lite interpreter, which runs the compact bytecode that only
`_save_for_lite_interpreter` writes into the archive (`bytecode.pkl`). A full-JIT archive
has the code, the constants and the tensors, but no bytecode, so loading stops at
the first record the lite interpreter looks for. Python's
`torch.jit.mobile._load_for_lite_interpreter` is the same loader the mobile apps call.
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
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "digits.pt"
        scripted.save(str(path))  # a full-JIT TorchScript archive: no bytecode.pkl
        _load_for_lite_interpreter(str(path))


if __name__ == "__main__":
    main()
