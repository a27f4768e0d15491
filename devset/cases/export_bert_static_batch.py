"""expected: static-batch-size
A tiny transformers BertModel exported with a batch of 2 and then called with a batch of 3.
"""
import torch
from transformers import BertConfig, BertModel

config = BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=64, vocab_size=100, max_position_embeddings=32)
model = BertModel(config).eval()
ep = torch.export.export(model, (torch.randint(0, 100, (2, 7)),))
ep.module()(torch.randint(0, 100, (3, 7)))
