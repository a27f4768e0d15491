"""Export a wrapper whose forward takes exactly the inputs the graph should have.

The wrapper calls the model by keyword and leaves the parameters it does not take
(`logits_to_keep` of the language model, `is_causal` of the EVA-style encoder) to the
model's own defaults, inside the trace: they stay Python values there. Only the
wrapper's parameters become graph inputs, and both exports match eager in onnxruntime.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn
from transformers import OpenAIGPTConfig, OpenAIGPTLMHeadModel

config = OpenAIGPTConfig(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2)
lm = OpenAIGPTLMHeadModel(config).eval()


class Logits(nn.Module):
    """input_ids in, logits out: the interface the ONNX graph should have."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, is_causal: bool = False):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        return self.proj(out.transpose(1, 2).reshape(b, n, c))


class Encoder(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.attn = Attention(dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, is_causal: bool = False):
        x = x + self.attn(self.norm(x), is_causal=is_causal)
        return x.mean(dim=1)


class Features(nn.Module):
    """Image tokens in, features out: the interface the ONNX graph should have."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, x):
        return self.encoder(x)


model = Logits(lm).eval()
example_args = (torch.randint(0, 64, (2, 6)),)
features = Features(Encoder().eval()).eval()


def export_and_compare(module, example, name, fresh):
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(module, example, path, dynamo=False, input_names=[name])
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        assert [i.name for i in session.get_inputs()] == [name]
        (got,) = session.run(None, {name: fresh.numpy()})
    with torch.no_grad():
        expected = module(fresh)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-4)


def main():
    export_and_compare(model, example_args, "input_ids", torch.randint(0, 64, (2, 6)))
    export_and_compare(features, (torch.randn(2, 5, 16),), "tokens", torch.randn(2, 5, 16))
    print("ok: each graph takes its one input, and onnxruntime matches eager on new inputs")


if __name__ == "__main__":
    main()
