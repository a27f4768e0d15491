"""An encoder-decoder model exported with the encoder's input only.

A sequence-to-sequence model's forward needs the decoder's tokens as well
(`decoder_input_ids`); generation normally supplies them. Exporting a tiny T5 (built from
a config, no weights) with only `input_ids` leaves the decoder with no input, and
transformers' decoder stack stops the trace with a ValueError.
"""
import io

import torch
from transformers import T5Config, T5ForConditionalGeneration

config = T5Config(vocab_size=64, d_model=16, d_kv=4, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2)
model = T5ForConditionalGeneration(config).eval()
example_args = (torch.randint(0, 64, (1, 6)),)  # input_ids only: decoder_input_ids is missing


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), dynamo=False)


if __name__ == "__main__":
    main()
