"""The legacy ONNX exporter calls forward with every parameter positionally.

It fills each parameter the example inputs did not give with its default value and
passes the whole list by position. Recent transformers models wrap `forward` in a
decorator that also passes some of those parameters (`use_cache` here) by keyword,
so the call receives the same argument twice.
"""
import tempfile
from pathlib import Path

import torch
from transformers import GlmOcrTextConfig, GlmOcrTextModel

config = GlmOcrTextConfig(vocab_size=64, hidden_size=128, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, intermediate_size=64)
model = GlmOcrTextModel(config).eval()
example_args = (torch.randint(0, 64, (2, 6)),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "model.onnx"), dynamo=False)


if __name__ == "__main__":
    main()
