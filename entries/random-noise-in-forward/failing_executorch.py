"""ExecuTorch refuses randn with a generator argument: it is not a Core ATen operator.

UnivNet draws noise with `torch.randn(shape, generator=generator)` in `forward`. The
exported program keeps `aten.randn.generator`, and lowering to the Edge dialect checks
that every operator is in the Core ATen opset.
"""
import torch
from executorch.exir import to_edge_transform_and_lower
from transformers import UnivNetConfig, UnivNetModel

config = UnivNetConfig(model_in_channels=8, model_hidden_channels=8, num_mel_bins=16,
                       resblock_stride_sizes=(2, 2, 2), kernel_predictor_hidden_channels=8)
model = UnivNetModel(config).eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    program = torch.export.export(model, example_args)
    to_edge_transform_and_lower(program).to_executorch()


if __name__ == "__main__":
    main()
