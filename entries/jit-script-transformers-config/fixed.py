"""Trace the model instead of scripting it, through a wrapper that returns tensors.

Tracing records the tensor operations of one call and never compiles the config class.
The wrapper passes `return_dict=False` and returns the hidden states, so the trace's
output is a plain tensor.
"""
import torch
from torch import nn
from transformers import BertConfig, BertModel

config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32, max_position_embeddings=32)
bert = BertModel(config).eval()


class HiddenStates(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, return_dict=False)[0]


model = HiddenStates(bert).eval()
example_args = (torch.randint(0, 64, (2, 8)),)


def main():
    traced = torch.jit.trace(model, example_args)
    for shape in ((2, 8), (3, 8), (2, 12)):  # other batch sizes and lengths too
        ids = torch.randint(0, 64, shape)
        with torch.no_grad():
            torch.testing.assert_close(traced(ids), model(ids))
    print("ok: the traced BERT matches eager on other batch sizes and sequence lengths")


if __name__ == "__main__":
    main()
