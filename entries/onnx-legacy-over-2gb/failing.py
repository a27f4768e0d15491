"""A model over 2 GiB cannot be exported by the legacy ONNX exporter into an in-memory buffer.

An ONNX file is a protobuf message, and protobuf cannot serialize a message over 2 GiB.
Larger models keep their weights as "external data" in separate files next to the .onnx
file, which needs a directory to write to. Exporting to a `BytesIO` (or any file-like
object) gives the exporter no directory, so it refuses.

The model is a text classifier whose vocabulary embedding alone holds 262,400 x 2,048
float32 weights, just over 2 GiB (about 30 s and 6.5 GB of memory on CPU).
"""
import io

import torch
from torch import nn


class BigVocabClassifier(nn.Module):
    def __init__(self, vocab: int = 262_400, dim: int = 2048, classes: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)  # 2.0 GiB of float32 weights
        self.head = nn.Linear(dim, classes)

    def forward(self, token_ids):
        return self.head(self.embed(token_ids).mean(dim=1))


torch.manual_seed(0)
model = BigVocabClassifier().eval()
example_args = (torch.randint(0, 262_400, (2, 8)),)


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, input_names=["token_ids"])


if __name__ == "__main__":
    main()
