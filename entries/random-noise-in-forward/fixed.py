"""Draw the noise outside the model and pass it in: forward then has no random operator.

UnivNet accepts `noise_sequence`; given one, it never calls `torch.randn`. The program
has the noise as a second input, exports with a dynamic batch, and runs on ExecuTorch
too. The output is reproducible because the caller controls the noise.
"""
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from torch import nn
from transformers import UnivNetConfig, UnivNetModel

config = UnivNetConfig(model_in_channels=8, model_hidden_channels=8, num_mel_bins=16,
                       resblock_stride_sizes=(2, 2, 2), kernel_predictor_hidden_channels=8)
vocoder = UnivNetModel(config).eval()


class Vocoder(nn.Module):
    """Spectrogram and noise in, waveform out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_features, noise_sequence):
        return self.model(input_features, noise_sequence=noise_sequence).waveforms


def noise_for(features):
    batch, frames, _ = features.shape
    return torch.randn(batch, frames, config.model_in_channels)


model = Vocoder(vocoder).eval()
features = torch.randn(2, 10, 16)
example_args = (features, noise_for(features))
batch = torch.export.Dim("batch", min=1, max=8)
dynamic_shapes = ({0: batch}, {0: batch})


def main():
    program = torch.export.export(model, example_args, dynamic_shapes=dynamic_shapes)
    other = torch.randn(3, 10, 16)
    inputs = (other, noise_for(other))  # a batch size the export did not see
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(program.module()(*inputs), expected)

    static = torch.export.export(model, example_args)
    buffer = to_edge_transform_and_lower(static).to_executorch().buffer
    method = Runtime.get().load_program(buffer).load_method("forward")
    (got,) = method.execute(list(example_args))
    with torch.no_grad():
        torch.testing.assert_close(got, model(*example_args), rtol=1e-4, atol=1e-4)
    print("ok: with the noise as an input, export takes a dynamic batch and ExecuTorch runs it; both match eager")


if __name__ == "__main__":
    main()
