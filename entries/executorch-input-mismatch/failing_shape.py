"""A method exported with static shapes takes inputs of exactly those shapes.

`torch.export.export` without `dynamic_shapes` fixes every dimension to the example's
size, and ExecuTorch plans the input's memory for that size. A longer (or shorter)
sequence cannot be resized into it: the runtime logs `Attempted to resize a static
tensor` and `execute` fails with error 0x10, `NotSupported`.
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
        method.execute([torch.randint(0, 100, (1, 16)), torch.ones(1, 16)])  # 16 tokens, exported with 8


if __name__ == "__main__":
    main()
