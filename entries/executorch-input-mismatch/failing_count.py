"""Every input the method was exported with must be passed, in order, on every call.

The attention mask was an input at export time, so it is an input of the program; an
app that passes only the token ids leaves input 1 unset. The runtime checks the count
before it runs anything and `execute` fails with error 0x12, `InvalidArgument`.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class TokenTagger(nn.Module):
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
        method.execute([torch.randint(0, 100, (1, 8))])  # the mask is missing


if __name__ == "__main__":
    main()
