"""PT2E quantization for XNNPACK turns integer position arithmetic into float.

The positions count the non-padding tokens, as RoBERTa's do: the running sum of an
int32 mask, plus the length of a cache (0 here), times the mask, cast to int64. The
export graph checks the dtype that each cast starts from at run time. XNNPACKQuantizer
prepares the graph by moving every Python number that `add` or `mul` take into a
constant tensor, and makes that tensor float32 whatever the node's dtype; the `+ past`
becomes float, and the first calibration run fails at that check with "Tensor dtype
mismatch! Expected: Int, Got: float".
"""
import torch
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e


class Tagger(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 32, positions: int = 64, tags: int = 5):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim, padding_idx=1)
        self.positions = nn.Embedding(positions, dim, padding_idx=1)
        self.head = nn.Linear(dim, tags)

    def forward(self, ids, past: int = 0):
        mask = ids.ne(1).int()
        where = ((torch.cumsum(mask, dim=1).type_as(mask) + past) * mask).long() + 1
        return self.head(self.tokens(ids) + self.positions(where))


model = Tagger().eval()
example_args = (torch.randint(2, 100, (2, 12)),)


def main():
    captured = torch.export.export(model, example_args).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(captured, quantizer)
    prepared(*example_args)  # calibration: fails here


if __name__ == "__main__":
    main()
