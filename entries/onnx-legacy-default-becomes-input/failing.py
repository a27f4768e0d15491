"""The legacy ONNX exporter can turn a defaulted forward parameter into a graph input.

It binds every parameter of `forward`, filling the ones the example inputs leave out with
their defaults, and traces the call. A default that the trace reads as a value, here
transformers' `logits_to_keep=0`, is recorded as an input of the ONNX graph. The model
exports without complaint; onnxruntime then refuses to run it on the inputs the caller
knows about.
"""
import tempfile
from pathlib import Path

import onnxruntime as ort
import torch
from transformers import OpenAIGPTConfig, OpenAIGPTLMHeadModel

config = OpenAIGPTConfig(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2)
model = OpenAIGPTLMHeadModel(config).eval()
example_args = ()
example_kwargs = {"input_ids": torch.randint(0, 64, (2, 6))}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.onnx")
        torch.onnx.export(model, example_args, path, kwargs=example_kwargs, dynamo=False,
                          input_names=["input_ids"])
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        print("graph inputs:", [i.name for i in session.get_inputs()])
        session.run(None, {"input_ids": example_kwargs["input_ids"].numpy()})


if __name__ == "__main__":
    main()
