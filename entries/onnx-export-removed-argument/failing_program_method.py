"""The ONNXProgram of torch 2.6 and later lacks the methods of the 2.4 one.

Scripts that moved from `torch.onnx.dynamo_export` to `torch.onnx.export(..., dynamo=True)`
but kept the rest of their 2.4 code still call `adapt_torch_inputs_to_onnx` on the result.
The program that 2.6 and later return has no such method: it takes torch tensors as they
are and runs them through onnxruntime itself, so the call stops with an `AttributeError`.
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
    program = torch.onnx.export(model, example_args, dynamo=True)
    onnx_inputs = program.adapt_torch_inputs_to_onnx(*example_args)
    print(f"{len(onnx_inputs)} ONNX input(s)")


if __name__ == "__main__":
    main()
