"""The same refusal when the flag is passed positionally: the whole tuple of inputs is rejected.

Any value that is not a tensor (a bool, a number, a string, None) makes the tuple
untraceable; the error names the tuple's type, here `Tuple[Tensor, Tensor, bool]`.
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
example_args = (torch.randint(0, 100, (2, 8)), torch.ones(2, 8, dtype=torch.long), True)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
