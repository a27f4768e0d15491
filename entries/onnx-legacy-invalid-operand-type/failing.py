"""The legacy ONNX exporter writes a CumSum over a bool tensor, which onnxruntime rejects.

Position ids are often computed by counting the non-padding tokens with a cumulative sum
over the padding mask. In PyTorch `mask.cumsum(1)` on a bool mask is fine (it returns
int64). The TorchScript-based exporter (`dynamo=False`) emits an ONNX `CumSum` whose input
is still the bool mask; ONNX's CumSum is defined only for numeric types, so the export
"succeeds" and onnxruntime refuses to load the model: `INVALID_GRAPH ... Type
'tensor(bool)' of input parameter ... of operator (CumSum) ... is invalid`.
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
        mask = input_ids != self.pad_id  # bool
        position_ids = mask.cumsum(dim=1) * mask  # 1, 2, 3... for tokens, 0 for padding
        return self.tokens(input_ids) + self.positions(position_ids)


model = PaddedTokenEmbedding().eval()
example_args = (torch.tensor([[5, 7, 9, 0, 0], [3, 4, 6, 8, 2]]),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["input_ids"])
    onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])  # fails to load


if __name__ == "__main__":
    main()
