"""The TorchScript-based ONNX exporter meets the same cache object in the output."""
import tempfile
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=100, n_embd=16, n_layer=1, n_head=2)
model = GPT2LMHeadModel(config).eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        torch.onnx.export(model, example_args, str(Path(tmp) / "model.onnx"), dynamo=False)


if __name__ == "__main__":
    main()
