"""An ExecuTorch method takes exactly the inputs it was exported with: same count, dtypes, shapes.

The runtime checks each input against the program when `execute` is called, and it does
not convert anything. Token ids were exported as int64 (`torch.randint` makes int64); an
app that fills its input from a float array (a Java `float[]`) passes float32 ids, and
the method refuses them with error 0x12, `InvalidArgument`.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class TokenTagger(nn.Module):
    """Embeds token ids and tags each token, masking padding: a small sequence-labelling head."""

    def __init__(self, vocab: int = 100, dim: int = 16, tags: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.tag = nn.Linear(dim, tags)

    def forward(self, input_ids, attention_mask):
        return self.tag(self.embed(input_ids)) * attention_mask[..., None]


model = TokenTagger().eval()
example_args = (torch.randint(0, 100, (1, 8)), torch.ones(1, 8))


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    program = to_edge_transform_and_lower(torch.export.export(model, example_args)).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        ids = torch.tensor([[12.0, 7.0, 55.0, 3.0, 0.0, 0.0, 0.0, 0.0]])  # ids read as floats
        method.execute([ids, torch.ones(1, 8)])


if __name__ == "__main__":
    main()
