"""torch.jit.trace, in its default strict mode, refuses a dict-like output.

A transformers model returns a `ModelOutput` (an ordered dict with attribute access).
The tracer records a fixed output structure, and with `strict=True` (the default) it
will not promise that a dict keeps the same keys for every input, so it stops.
"""
import torch
from transformers import BertConfig, BertModel

config = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32)
model = BertModel(config).eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
