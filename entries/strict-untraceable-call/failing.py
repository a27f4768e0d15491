"""Strict export (TorchDynamo) cannot trace a call into an opaque tokenizer object.

The model tokenizes a fixed text prompt inside forward with a Hugging Face
`tokenizers.Tokenizer`, a Rust extension object. Dynamo has no model of its
`encode` method, so `strict=True` fails on the call.
"""
import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from torch import nn

VOCAB = {"[UNK]": 0, "a": 1, "photo": 2, "of": 3, "cat": 4, "dog": 5}


def build_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    return tokenizer


class PromptedClassifier(nn.Module):
    """Scores image features against the embedding of a built-in text prompt."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.tok = build_tokenizer()
        self.prompt = "a photo of"
        self.text_embed = nn.Embedding(len(VOCAB), dim)
        self.image_proj = nn.Linear(16, dim)

    def forward(self, image_features):
        ids = torch.tensor([self.tok.encode(self.prompt).ids])
        text = self.text_embed(ids).mean(dim=1)
        return self.image_proj(image_features) * text


model = PromptedClassifier().eval()
example_args = (torch.randn(2, 16),)


def main():
    # fails: Dynamo cannot trace Tokenizer.encode
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
