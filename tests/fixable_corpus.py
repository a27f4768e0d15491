"""A corpus source whose failures two entries with automatic fixes explain (tests/test_fixes.py)."""
from collectors.corpus.base import Case, ModelSpec


def list_models():
    return [ModelSpec("fixable", "tokenized-prompt"), ModelSpec("fixable", "fixed-width-view")]


def build(model_id):
    import torch
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    if model_id == "tokenized-prompt":
        # strict export cannot trace into the Rust tokenizer; non-strict export runs it.
        vocab = {"[UNK]": 0, "a": 1, "photo": 2, "of": 3}

        class Prompted(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
                self.tok.pre_tokenizer = Whitespace()
                self.embed = torch.nn.Embedding(len(vocab), 4)
                self.proj = torch.nn.Linear(4, 4)

            def forward(self, x):
                ids = torch.tensor([self.tok.encode("a photo of").ids])
                return self.proj(x) * self.embed(ids).mean(dim=1)

        model, batch = Prompted().eval(), torch.export.Dim("batch", min=2, max=8)
        return Case(model, (torch.randn(2, 4),), dynamic_shapes=({0: batch},), alt_args=(torch.randn(3, 4),),
                    definition={"id": model_id})

    # The view hard-codes batch 2: a named dynamic batch dim is specialized away.
    class FixedWidth(torch.nn.Module):
        def forward(self, x):
            return x.reshape(2, -1).sum(dim=1)

    batch = torch.export.Dim("batch", min=2, max=8)
    return Case(FixedWidth().eval(), (torch.randn(2, 6),), dynamic_shapes=({0: batch},), alt_args=(torch.randn(3, 6),),
                definition={"id": model_id})
