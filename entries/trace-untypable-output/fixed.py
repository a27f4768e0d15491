"""Turn the cache off and return the logits: the output is a tensor the tracer can type."""
import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(vocab_size=100, n_embd=16, n_layer=1, n_head=2)
lm = GPT2LMHeadModel(config).eval()


class LogitsOnly(nn.Module):
    """What a deployment needs from one forward pass: the next-token logits."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids):
        return self.lm(input_ids, use_cache=False).logits


model = LogitsOnly(lm).eval()
example_args = (torch.randint(0, 100, (2, 8)),)


def main():
    traced = torch.jit.trace(model, example_args)
    ids = torch.randint(0, 100, (3, 5))
    torch.testing.assert_close(traced(ids), model(ids))
    print("ok: traced logits match eager on a new batch size and length")


if __name__ == "__main__":
    main()
