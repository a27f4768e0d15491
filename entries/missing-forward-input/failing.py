"""The export call's example inputs leave out a required argument of forward.

Exporters run the model once with the example inputs, so `args` must hold one value for
every parameter of `forward` that has no default. This character-level GRU takes the
token ids and the previous hidden state; the export call passes only the tokens, and the
legacy ONNX exporter's trace of `forward` fails with Python's own TypeError.
"""
import io

import torch
from torch import nn


class CharRNN(nn.Module):
    def __init__(self, vocab: int = 50, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, hidden):
        states, hidden = self.gru(self.embed(tokens), hidden)
        return self.out(states), hidden


model = CharRNN().eval()
example_args = (torch.randint(0, 50, (1, 5)),)  # the hidden state is missing


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)


if __name__ == "__main__":
    main()
