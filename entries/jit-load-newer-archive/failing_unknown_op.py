"""The archive's code calls an operator the loading torch does not have.

A TorchScript archive keeps each method as source code, which the loader compiles again,
looking every `torch.*` call up among its own operators. A model scripted on a torch that
has `F.scaled_dot_product_attention` (added in 2.0) calls `torch.scaled_dot_product_attention`
in its saved code, and a 1.x loader has no such operator.

torch 2.13 knows that operator, so the script stands in for the newer writer: it saves
the scripted attention block, renames the call in the saved code to an operator no torch
release has (`torch.attention_from_newer_torch`), and loads the copy. The loader fails
on the missing operator exactly where an older torch fails on a newer one.
"""
import io
import zipfile

import torch
from torch import nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
        return self.proj(y.transpose(1, 2).reshape(b, n, d))


torch.manual_seed(0)
model = SelfAttention().eval()
example_args = (torch.randn(2, 5, 16),)


def with_newer_operator(archive: bytes) -> io.BytesIO:
    """A copy of the archive whose code calls an operator this torch does not know."""
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if "/code/" in name and name.endswith(".py"):
                data = data.replace(b"torch.scaled_dot_product_attention(", b"torch.attention_from_newer_torch(")
            dst.writestr(name, data)
    out.seek(0)
    return out


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    torch.jit.load(with_newer_operator(buf.getvalue()))


if __name__ == "__main__":
    main()
