"""A TorchScript archive written by a newer torch, loaded by an older torch or libtorch.

Every TorchScript archive records the file format version its writer used, in a small
`version` (or `.data/version`) file inside the zip. A loader compares that number with
the highest version it knows and refuses the archive when the record is higher. torch
2.13 reads up to version 10, and writes this very module as version 10 because it calls
`gelu(approximate="tanh")`, so a loader that stops at 9 refuses even the untouched file.

No older torch is installed here, so the script plays the newer writer instead: it saves
the scripted module, raises the version record to 11 and loads the copy. The loader runs
the same comparison it runs on a file a newer torch really wrote.
"""
import io
import zipfile

import torch
from torch import nn

NEWER_VERSION = 11  # one above the highest file format version torch 2.13 reads


class TinyClassifier(nn.Module):
    def __init__(self, in_dim: int = 16, hidden: int = 32, classes: int = 4):
        super().__init__()
        self.hidden = nn.Linear(in_dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(nn.functional.gelu(self.hidden(x), approximate="tanh"))


torch.manual_seed(0)
model = TinyClassifier().eval()
example_args = (torch.randn(4, 16),)


def with_version(archive: bytes, version: int) -> io.BytesIO:
    """A copy of the archive whose file format version record says `version`."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith("/version"):  # archive/version or archive/.data/version
                data = f"{version}\n".encode()
            dst.writestr(name, data)
    out.seek(0)
    return out


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    torch.jit.load(with_version(buf.getvalue(), NEWER_VERSION))


if __name__ == "__main__":
    main()
