"""An old export call passes `example_outputs`, which torch.onnx.export no longer accepts.

Scripts and tutorials from the 1.x releases passed `example_outputs=` (needed then when
exporting a ScriptModule), `use_external_data_format=`, `enable_onnx_checker=` or
`strip_doc_string=`. torch 2.13 accepts none of them and raises `TypeError: export() got
an unexpected keyword argument 'example_outputs'`.
"""
import io

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
    with torch.no_grad():
        outputs = model(*example_args)
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False, opset_version=17,
                      example_outputs=outputs)


if __name__ == "__main__":
    main()
