"""A mobile (lite interpreter) file with a newer bytecode version than the runtime reads.

`_save_for_lite_interpreter` writes the module as bytecode for PyTorch Mobile, stamped
with a bytecode version; a lite interpreter accepts only a range of versions. torch 2.13
writes version 8 and reads 4 to 9. To stand for a file from a newer writer, the script
raises the stamp (the first value in `bytecode.pkl`) to 10 and loads the copy.
"""
import io
import zipfile

import torch
from torch import nn
from torch.jit.mobile import _load_for_lite_interpreter

NEWER_BYTECODE = 10  # one above the highest bytecode version torch 2.13 reads


class TinyClassifier(nn.Module):
    def __init__(self, in_dim: int = 16, hidden: int = 32, classes: int = 4):
        super().__init__()
        self.hidden = nn.Linear(in_dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x)))


torch.manual_seed(0)
model = TinyClassifier().eval()
example_args = (torch.randn(4, 16),)


def with_bytecode_version(archive: bytes, version: int) -> io.BytesIO:
    """A copy of the mobile file whose bytecode.pkl starts with `version`."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith("/bytecode.pkl"):
                # pickle protocol 2, then the version as a one-byte int (BININT1 'K')
                assert data[:3] == b"\x80\x02K", data[:8]
                data = data[:3] + bytes([version]) + data[4:]
            dst.writestr(name, data)
    out.seek(0)
    return out


def main():
    archive = torch.jit.script(model)._save_to_buffer_for_lite_interpreter()
    _load_for_lite_interpreter(with_bytecode_version(archive, NEWER_BYTECODE))


if __name__ == "__main__":
    main()
