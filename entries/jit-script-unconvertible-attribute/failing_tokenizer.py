"""A tokenizer held by the module is an attribute TorchScript cannot convert either.

The model tokenizes its fixed prompt in `forward` with a Hugging Face
`tokenizers.Tokenizer`, a Rust extension object. TorchScript has no type for it and
reports `self.tok` as missing.
"""
import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from torch import nn

VOCAB = {"[UNK]": 0, "a": 1, "photo": 2, "of": 3, "cat": 4}


def build_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    return tokenizer


class PromptedClassifier(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.tok = build_tokenizer()
        self.prompt = "a photo of"
        self.text_embed = nn.Embedding(len(VOCAB), dim)
        self.image_proj = nn.Linear(16, dim)

    def forward(self, image_features):
        ids = torch.tensor([self.tok.encode(self.prompt).ids])
        return self.image_proj(image_features) * self.text_embed(ids).mean(dim=1)


model = PromptedClassifier().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
