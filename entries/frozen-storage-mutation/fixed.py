"""Cloning the result of `.to()` before the in-place write makes it an ordinary traced tensor."""
import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from torch import nn

VOCAB = {"[UNK]": 0, "[CLS]": 1, "[DEC]": 2, "a": 3, "picture": 4, "of": 5}


def build_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer(WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    return tokenizer


class TinyCaptioner(nn.Module):
    """Image features plus an embedded text prompt, shaped like BLIP's decoder input."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.tok = build_tokenizer()
        self.prompt = "a picture of"
        self.bos_token_id = VOCAB["[DEC]"]
        self.image_proj = nn.Linear(3, dim)
        self.text_embed = nn.Embedding(len(VOCAB), dim)

    def forward(self, image):
        input_ids = torch.tensor([self.tok.encode("[CLS] " + self.prompt).ids]).to(image.device)
        input_ids = input_ids.clone()  # the write below now lands in a fresh traced tensor
        input_ids[:, 0] = self.bos_token_id
        image_embeds = self.image_proj(image.mean(dim=(2, 3)))
        return self.text_embed(input_ids) + image_embeds[:, None, :]


model = TinyCaptioner().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    exported = torch.export.export(model, example_args, strict=False)
    image = torch.randn(1, 3, 16, 16)
    torch.testing.assert_close(exported.module()(image), model(image))
    print("ok: export with .clone() before the in-place write matches eager")


if __name__ == "__main__":
    main()
