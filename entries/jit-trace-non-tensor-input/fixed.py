"""Fix the non-tensor options in a small wrapper and trace that, with tensors as the only inputs.

The wrapper stores `return_probs` as a Python attribute and passes it on every call,
so the tracer sees it as part of the model, not as an input. A trace records the branch
the flag selected, so trace once per setting you need.
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


class WithOptions(nn.Module):
    """Binds the non-tensor options; forward takes tensors only."""

    def __init__(self, inner: nn.Module, return_probs: bool):
        super().__init__()
        self.inner = inner
        self.return_probs = return_probs

    def forward(self, input_ids, attention_mask):
        return self.inner(input_ids, attention_mask, return_probs=self.return_probs)


classifier = TextClassifier().eval()
model = WithOptions(classifier, return_probs=True).eval()
example_args = (torch.randint(0, 100, (2, 8)), torch.ones(2, 8, dtype=torch.long))


def main():
    traced = {flag: torch.jit.trace(WithOptions(classifier, flag).eval(), example_args) for flag in (True, False)}
    ids = torch.randint(0, 100, (3, 5))
    mask = torch.ones(3, 5, dtype=torch.long)
    mask[0, 3:] = 0
    for flag, program in traced.items():
        torch.testing.assert_close(program(ids, mask), classifier(ids, mask, return_probs=flag))
    print("ok: one trace per return_probs setting; both match eager on a new batch")


if __name__ == "__main__":
    main()
