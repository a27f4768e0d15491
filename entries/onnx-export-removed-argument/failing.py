"""torch.onnx.export rejects a keyword argument that an earlier release accepted.

Export scripts outlive the torch release they were written for. This one still passes
`fallback=True`, which 2.x releases accepted (retry with the TorchScript-based
exporter if the dynamo one fails) and which torch 2.13 no longer has, so the call stops
before any tracing with `TypeError: export() got an unexpected keyword argument 'fallback'`.
"""
import torch
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16, classes: int = 3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, token_ids):
        return self.head(self.embed(token_ids).mean(dim=1))


model = TextClassifier().eval()
example_args = (torch.randint(0, 100, (2, 7)),)


def main():
    torch.onnx.export(model, example_args, dynamo=True, fallback=True)


if __name__ == "__main__":
    main()
