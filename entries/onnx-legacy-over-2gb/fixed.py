"""Export to a file path, so the weights can be written as external data beside the model.

Given a path, the legacy exporter stores the large initializers in separate files in the
same directory and the .onnx file stays small. onnxruntime loads the model from that path
(it finds the external data next to it) and matches eager.
"""
import os
import tempfile
from pathlib import Path

import onnxruntime
import torch
from torch import nn


class BigVocabClassifier(nn.Module):
    def __init__(self, vocab: int = 262_400, dim: int = 2048, classes: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)  # 2.0 GiB of float32 weights
        self.head = nn.Linear(dim, classes)

    def forward(self, token_ids):
        return self.head(self.embed(token_ids).mean(dim=1))


torch.manual_seed(0)
model = BigVocabClassifier().eval()
example_args = (torch.randint(0, 262_400, (2, 8)),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        torch.onnx.export(model, example_args, str(path), dynamo=False, input_names=["token_ids"])
        files = sorted(os.listdir(tmp))
        print(f"wrote {len(files)} files; model.onnx is {path.stat().st_size / 2**20:.1f} MiB")
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {"token_ids": example_args[0].numpy()})
        del session
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(got), model(*example_args), rtol=1e-4, atol=1e-5)
    print("ok: exported to a path with external data, the 2 GiB model matches eager in onnxruntime")


if __name__ == "__main__":
    main()
