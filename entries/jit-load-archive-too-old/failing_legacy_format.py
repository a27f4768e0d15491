"""A TorchScript file in the first releases' layout, with `model.json` instead of `data.pkl`.

The earliest TorchScript files described the module in a `model.json` record (and wrote
file format version 1); later writers switched to pickled records (`data.pkl`,
`constants.pkl`). torch 2.13 still accepts version 1 in the version check, but its
loader no longer converts the old layout: as soon as it sees `model.json` it stops, with
a message that names mobile even on a desktop build.

No torch old enough to write that layout is installed here, so the script simulates an
old file from a real archive: it saves a scripted module with torch 2.13, removes the
pickled module and constants, sets the version record to 1 and adds a `model.json`
record. Its content is a stand-in, since torch 2.13 refuses on the record's presence
before reading it.
"""
import io
import json
import zipfile

import torch
from torch import nn


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


def in_legacy_layout(archive: bytes) -> io.BytesIO:
    """A copy of the archive laid out like a first-release file: version 1 and model.json."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    prefix = src.namelist()[0].split("/", 1)[0]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            if name.endswith(("/data.pkl", "/constants.pkl")):
                continue  # the pickled layout came later
            data = src.read(name)
            if name.endswith("/version"):
                data = b"1\n"
            dst.writestr(name, data)
        stand_in = {"producerName": "pytorch", "mainModule": {"name": "TinyDigitNet"}}
        dst.writestr(f"{prefix}/model.json", json.dumps(stand_in))
    out.seek(0)
    return out


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    torch.jit.load(in_legacy_layout(buf.getvalue()))


if __name__ == "__main__":
    main()
