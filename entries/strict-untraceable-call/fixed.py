"""Non-strict export runs the tokenizer call as ordinary Python and traces only the tensor ops."""
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
    # strict=False is the default in current torch; spelled out for older releases.
    exported = torch.export.export(model, example_args, strict=False)
    features = torch.randn(2, 16)
    torch.testing.assert_close(exported.module()(features), model(features))
    print("ok: non-strict export traces past Tokenizer.encode and matches eager")


if __name__ == "__main__":
    main()
