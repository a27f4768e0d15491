"""Drop the removed argument and choose the exporter explicitly.

`fallback` is gone; pass `dynamo=True` (or `dynamo=False` for the TorchScript-based
exporter) and nothing else from the old signature. The model exports and onnxruntime
matches eager, both through a session of its own and through the returned program, which
takes torch tensors directly where 2.4 code called `adapt_torch_inputs_to_onnx`.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
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
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: example_args[0].numpy()})
    # The program runs onnxruntime itself (2.4 returned NumPy arrays, later releases tensors).
    through_program = torch.as_tensor(program(*example_args)[0])
    with torch.no_grad():
        expected = model(*example_args)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(through_program, expected, rtol=1e-4, atol=1e-5)
    print("ok: without the removed argument the model exports and matches eager in onnxruntime")


if __name__ == "__main__":
    main()
