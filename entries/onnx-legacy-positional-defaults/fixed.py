"""Export with the dynamo-based exporter, through a wrapper that names what it passes."""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from torch import nn
from transformers import GlmOcrTextConfig, GlmOcrTextModel

config = GlmOcrTextConfig(vocab_size=64, hidden_size=128, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, intermediate_size=64)
text_model = GlmOcrTextModel(config).eval()


class HiddenStates(nn.Module):
    """Calls the model by keyword and returns a tensor, the program's whole interface."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).last_hidden_state


model = HiddenStates(text_model).eval()
example_args = (torch.randint(0, 64, (2, 6)),)


def main():
    program = torch.onnx.export(model, example_args, dynamo=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.onnx"
        program.save(str(path))
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        ids = torch.randint(0, 64, (2, 6))
        (got,) = session.run(None, {session.get_inputs()[0].name: ids.numpy()})
    with torch.no_grad():
        expected = model(ids)
    torch.testing.assert_close(torch.from_numpy(got), expected, rtol=1e-4, atol=1e-4)
    print("ok: the ONNX program run by onnxruntime matches eager on new ids")


if __name__ == "__main__":
    main()
