"""A model that draws its own random noise in forward cannot be exported with a dynamic batch.

UnivNet, a vocoder, calls `torch.randn(shape, generator=generator)` inside `forward` when
no noise is passed in. With a dynamic batch dimension the shape is symbolic, and the
`randn.generator` overload only accepts concrete sizes.
"""
import torch
from transformers import UnivNetConfig, UnivNetModel

config = UnivNetConfig(model_in_channels=8, model_hidden_channels=8, num_mel_bins=16,
                       resblock_stride_sizes=(2, 2, 2), kernel_predictor_hidden_channels=8)
model = UnivNetModel(config).eval()
example_args = (torch.randn(2, 10, 16),)  # (batch, frames, mel bins)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=8)},)


def main():
    torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)


if __name__ == "__main__":
    main()
