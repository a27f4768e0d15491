"""An ONNX export script written for torch 2.4 calls APIs that later releases removed.

Until torch 2.5 the dynamo-based exporter was `torch.onnx.dynamo_export`, and the
`ONNXProgram` it returned converted inputs with `adapt_torch_inputs_to_onnx`. Torch 2.6
rebuilt `ONNXProgram` without that method, and a later release removed `dynamo_export`
itself, so this script stops with an `AttributeError` on one name or the other.
"""
import torch
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 16, classes: int = 3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, token_ids):
        return self.head(self.embed(token_ids).mean(dim=1))


model = TextClassifier().eval()
example_args = (torch.randint(0, 100, (2, 7)),)


def main():
    program = torch.onnx.dynamo_export(model, *example_args)
    onnx_inputs = program.adapt_torch_inputs_to_onnx(*example_args)
    print(f"{len(onnx_inputs)} ONNX input(s)")


if __name__ == "__main__":
    main()
