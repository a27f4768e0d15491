"""torch.jit.trace cannot type an output that holds a transformers cache object.

A causal language model returns its key/value cache (`past_key_values`, a
`DynamicCache`) next to the logits when `use_cache` is on, which is the default. The
tracer can only record tensors and tuples, lists and dicts of them.
"""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=100, n_embd=16, n_layer=1, n_head=2)
model = GPT2LMHeadModel(config).eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    torch.jit.trace(model, example_args, strict=False)


if __name__ == "__main__":
    main()
