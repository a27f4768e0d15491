"""The same missing argument with the dynamo-based ONNX exporter (and torch.export).

torch.export binds the example inputs to forward's signature before tracing, so the
message comes from that binding (`missing a required argument: 'hidden'`), wrapped in the
ONNX exporter's step-1 error.
"""
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
    torch.onnx.export(model, example_args, dynamo=True)


if __name__ == "__main__":
    main()
