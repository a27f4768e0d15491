"""Cast the bool mask to an integer type before the cumulative sum.

`mask.long().cumsum(1)` computes the same position ids in PyTorch, and the exporter now
feeds CumSum an int64 tensor, which ONNX allows. The model loads in onnxruntime and
matches eager, on the example and on a longer batch with other padding.
"""
import io

import onnxruntime
import torch
from torch import nn


class PaddedTokenEmbedding(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16, max_len: int = 64, pad_id: int = 0):
        super().__init__()
        self.pad_id = pad_id
        self.tokens = nn.Embedding(vocab, dim, padding_idx=pad_id)
        self.positions = nn.Embedding(max_len + 1, dim, padding_idx=0)

    def forward(self, input_ids):
        mask = (input_ids != self.pad_id).long()  # int64, not bool
        position_ids = mask.cumsum(dim=1) * mask
        return self.tokens(input_ids) + self.positions(position_ids)


model = PaddedTokenEmbedding().eval()
example_args = (torch.tensor([[5, 7, 9, 0, 0], [3, 4, 6, 8, 2]]),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["input_ids"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "length"}})
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    longer = torch.tensor([[1, 2, 3, 4, 5, 6, 0], [9, 8, 0, 0, 0, 0, 0], [4, 4, 4, 4, 4, 4, 4]])
    for ids in (example_args[0], longer):
        (got,) = session.run(None, {"input_ids": ids.numpy()})
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(ids), rtol=1e-4, atol=1e-5)
    print("ok: with an int64 mask the legacy export loads in onnxruntime and matches eager")


if __name__ == "__main__":
    main()
