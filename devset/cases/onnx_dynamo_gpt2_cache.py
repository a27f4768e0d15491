"""expected: cache-output-not-pytree
torch.onnx.export(dynamo=True) of a tiny GPT2LMHeadModel built from a config, with use_cache on; the DynamicCache in the output breaks the export.
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(n_embd=32, n_layer=1, n_head=2, vocab_size=100, n_positions=64)
model = GPT2LMHeadModel(config).eval()
input_ids = torch.randint(0, 100, (1, 8))
torch.onnx.export(model, (input_ids,), kwargs={"use_cache": True}, dynamo=True)
