"""torch.jit.trace accepts only tensors as example inputs, so a bool flag argument is refused.

The classifier takes an option, `return_probs`, next to its tensor inputs. Passing it
to the tracer along with the tensors, here through `example_kwarg_inputs`, fails before
anything runs: the tracer turns every example input into an input of the traced graph,
and a graph input must be a tensor.
"""
import torch
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16, classes: int = 3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids, attention_mask, return_probs: bool = False):
        mask = attention_mask.unsqueeze(-1).to(torch.float32)
        pooled = (self.embed(input_ids) * mask).sum(dim=1) / mask.sum(dim=1)
        logits = self.head(pooled)
        return logits.softmax(dim=-1) if return_probs else logits


model = TextClassifier().eval()
example_kwargs = {
    "input_ids": torch.randint(0, 100, (2, 8)),
    "attention_mask": torch.ones(2, 8, dtype=torch.long),
    "return_probs": True,
}
example_args = ()


def main():
    torch.jit.trace(model, example_kwarg_inputs=example_kwargs)


if __name__ == "__main__":
    main()
