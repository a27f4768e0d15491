"""The ONNX exporter has no translation for randn with a generator argument.

UnivNet draws noise with `torch.randn(shape, generator=generator)` in `forward`; the
exported program keeps `aten.randn.generator`, which the dynamo-based ONNX exporter
cannot translate.
"""
import torch
from transformers import UnivNetConfig, UnivNetModel

config = UnivNetConfig(model_in_channels=8, model_hidden_channels=8, num_mel_bins=16,
                       resblock_stride_sizes=(2, 2, 2), kernel_predictor_hidden_channels=8)
model = UnivNetModel(config).eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    torch.onnx.export(model, example_args, dynamo=True, verbose=False)


if __name__ == "__main__":
    main()
