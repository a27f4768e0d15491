"""Export the sequence length as a bounded dynamic dim, and pass inputs of the exported dtypes.

`Dim("seq", max=64)` makes ExecuTorch plan memory for up to 64 tokens, so any length up
to that runs; the ids go in as int64, the dtype they were exported with. The method's
metadata (`method.metadata.input_tensor_meta(i)`) says what each input must be, which is
where an app should read it from rather than guess.
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

    seq = torch.export.Dim("seq", max=64)
    exported = torch.export.export(model, example_args, dynamic_shapes=({1: seq}, {1: seq}))
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        wanted = method.metadata.input_tensor_meta(0).dtype()
        for length in (4, 8, 16):
            ids = torch.tensor([[12.0, 7.0, 55.0, 3.0] * (length // 4)])  # as an app may hold them
            ids = ids.to(torch.int64)  # the dtype the method was exported with
            mask = torch.ones(1, length)
            (out,) = method.execute([ids, mask])
            with torch.no_grad():
                torch.testing.assert_close(out, model(ids, mask))
    print(f"ok: the method runs 4, 8 and 16 tokens (input 0 wants dtype code {wanted}, int64) and matches eager")


if __name__ == "__main__":
    main()
