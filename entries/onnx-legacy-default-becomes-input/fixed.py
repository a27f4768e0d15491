"""Export a wrapper whose forward takes exactly the inputs the graph should have.

The wrapper calls the model by keyword and leaves `logits_to_keep` to the model's own
default, inside the trace. Only the wrapper's parameters become graph inputs.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn
from transformers import OpenAIGPTConfig, OpenAIGPTLMHeadModel

config = OpenAIGPTConfig(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2)
lm = OpenAIGPTLMHeadModel(config).eval()


class Logits(nn.Module):
    """input_ids in, logits out: the interface the ONNX graph should have."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).logits


model = Logits(lm).eval()
example_args = (torch.randint(0, 64, (2, 6)),)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, path, dynamo=False, input_names=["input_ids"])
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        assert [i.name for i in session.get_inputs()] == ["input_ids"]
        ids = torch.randint(0, 64, (2, 6))
        (got,) = session.run(None, {"input_ids": ids.numpy()})
    with torch.no_grad():
        expected = model(ids)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-4)
    print("ok: the graph takes input_ids only, and onnxruntime matches eager on new ids")


if __name__ == "__main__":
    main()
