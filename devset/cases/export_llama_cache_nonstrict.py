"""expected: cache-output-not-pytree
torch.export.export (non-strict) of a tiny LlamaForCausalLM built from a config with the default cache; the DynamicCache in the output is not a pytree.
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=2, num_key_value_heads=2, vocab_size=100)
model = LlamaForCausalLM(config).eval()
input_ids = torch.randint(0, 100, (1, 6))
torch.export.export(model, (input_ids,), kwargs={"use_cache": True}, strict=False)
