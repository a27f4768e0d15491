"""Pass every required input of forward in the export call.

The initial hidden state is an input like the tokens: give an example of it in `args`
(zeros of shape (layers, batch, hidden)). The model exports with both inputs, and
onnxruntime matches eager on both outputs.
"""
import io

import onnxruntime
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
example_args = (torch.randint(0, 50, (1, 5)), torch.zeros(1, 1, 32))  # tokens and the hidden state


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False,
                      input_names=["tokens", "hidden"], output_names=["logits", "next_hidden"])
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    hidden = torch.randn(1, 1, 32)  # a non-zero state, as in the middle of a sequence
    tokens = example_args[0]
    got = session.run(None, {"tokens": tokens.numpy(), "hidden": hidden.numpy()})
    with torch.no_grad():
        want = model(tokens, hidden)
    for g, w in zip(got, want):
        torch.testing.assert_close(torch.from_numpy(g), w, rtol=1e-4, atol=1e-5)
    print("ok: with the hidden state in args the legacy export matches eager in onnxruntime")


if __name__ == "__main__":
    main()
