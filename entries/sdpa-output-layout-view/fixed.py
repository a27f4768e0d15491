"""Select the math attention backend for the whole export.

Under `sdpa_kernel(SDPBackend.MATH)`, scaled_dot_product_attention returns an ordinary
contiguous tensor in every step of the export, so no step records a `view` that only the
fused kernel's memory layout allows. This script exports both blocks of the entry under
it: the relative-position-bias attention to ONNX (run in onnxruntime) and the
GPT-2-style block through torch.export's `run_decompositions()`.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


class RelPosAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4, side: int = 3):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        tokens = side * side
        # One learned bias per head and relative offset, as in BEiT / Swin.
        self.bias_table = nn.Parameter(0.02 * torch.randn((2 * side - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(side), torch.arange(side), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (side - 1)
        self.register_buffer("rel_index", (rel[..., 0] * (2 * side - 1) + rel[..., 1]).reshape(tokens * tokens))
        self.tokens = tokens

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        bias = self.bias_table[self.rel_index].reshape(N, N, self.heads).permute(2, 0, 1).unsqueeze(0)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return self.proj(out.transpose(1, 2).reshape(B, N, C))


model = RelPosAttention().eval()
example_args = (torch.randn(2, 9, 32),)


class SelfAttention(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q = self.q(x).view(B, N, self.heads, -1).transpose(1, 2)
        k = self.k(x).view(B, N, self.heads, -1).transpose(1, 2)
        v = self.v(x).view(B, N, self.heads, -1).transpose(1, 2)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        attn = attn.transpose(1, 2).contiguous()
        return self.out(attn.view(B * N, C)).view(B, N, C)



def main():
    # The model of failing.py, to ONNX.
    with sdpa_kernel(SDPBackend.MATH):
        program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        x = torch.randn(2, 9, 32)
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-4)

    # The model of failing_export.py, through torch.export's decompositions.
    block = SelfAttention().eval()
    with sdpa_kernel(SDPBackend.MATH):
        lowered = torch.export.export(block, (torch.randn(2, 8, 32),)).run_decompositions()
    x = torch.randn(2, 8, 32)
    with torch.no_grad():
        torch.testing.assert_close(lowered.module()(x), block(x))
    print("ok: under the math backend both blocks export (ONNX, run_decompositions) and match eager")


if __name__ == "__main__":
    main()
