"""Load the archive with a torch at least as new as the one that wrote it.

Here the writer and the loader are the same release (torch 2.13), so the untouched
archive's version record (10 for this module) is within what the loader reads. The
loaded module is compared with eager on another batch.
"""
import io
import zipfile

import torch
from torch import nn


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


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    archive = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    record = next(n for n in archive.namelist() if n.endswith("/version"))
    version = int(archive.read(record))
    buf.seek(0)
    loaded = torch.jit.load(buf)
    x = torch.randn(9, 16)
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), model(x))
    print(f"ok: the archive ({record.split('/', 1)[1]} = {version}) loads on torch "
          f"{torch.__version__} and matches eager on a batch of 9")


if __name__ == "__main__":
    main()
