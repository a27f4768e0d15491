"""A TorchScript archive older than the oldest file version the loading torch reads.

The zip a `torch.jit.save` writes holds a `version` record: the file format version of
the writer. Before it reads anything else, the loader checks that number against the
lowest and the highest version it still understands. torch 2.13 reads versions 1 to 10;
libtorch builds from late 2018 had already raised their lowest to 2 and refused the
version 1 files of the first TorchScript releases.

No torch old enough to write such a file is installed here, so the script simulates the
old writer: it traces and saves a small digit classifier with torch 2.13, lowers the
copy's version record to 0 (one below the lowest this torch reads) and loads the copy.
The refusal comes from the loader's own check, the same one an old file meets.
"""
import io
import zipfile

import torch
from torch import nn

OLDER_VERSION = 0  # one below the lowest file format version torch 2.13 reads (1)


class TinyDigitNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(4 * 6 * 6, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pool(torch.relu(self.conv(x)))
        return self.head(y.flatten(1))


torch.manual_seed(0)
model = TinyDigitNet().eval()
example_args = (torch.randn(2, 1, 12, 12),)


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
    with torch.no_grad():
        torch.jit.save(torch.jit.trace(model, example_args), buf)
    torch.jit.load(with_version(buf.getvalue(), OLDER_VERSION))


if __name__ == "__main__":
    main()
