"""Writing in place into the result of `.to(device)` inside forward.

BLIP's captioning forward tokenizes its text prompt, moves the ids with
`.to(image.device)` and then overwrites the first token id in place
(`input_ids[:, 0] = bos_token_id`). Non-strict torch.export on older releases
rejected that write with "cannot mutate tensors with frozen storage". This is the
same pattern, with a tiny in-memory tokenizer. On torch 2.13.0 the export
succeeds; the script reports that and exits 0.
"""
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
        # BLIP: self.tokenizer(..., return_tensors="pt").to(image.device)
        input_ids = torch.tensor([self.tok.encode("[CLS] " + self.prompt).ids]).to(image.device)
        input_ids[:, 0] = self.bos_token_id  # in-place write into the result of .to()
        image_embeds = self.image_proj(image.mean(dim=(2, 3)))
        return self.text_embed(input_ids) + image_embeds[:, None, :]


model = TinyCaptioner().eval()
example_args = (torch.randn(1, 3, 16, 16),)


def main():
    # failed on older releases with: RuntimeError: cannot mutate tensors with frozen storage
    exported = torch.export.export(model, example_args, strict=False)
    image = torch.randn(1, 3, 16, 16)
    torch.testing.assert_close(exported.module()(image), model(image))
    print(
        f"export succeeded on torch {torch.__version__}: the in-place write was traced "
        "and the exported program matches eager (the failure does not reproduce here)"
    )


if __name__ == "__main__":
    main()
