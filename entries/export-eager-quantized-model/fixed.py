"""Export the float model first, then quantize the exported graph (PT2E, torchao).

`prepare_pt2e` inserts observers into the graph captured by torch.export and
`convert_pt2e` replaces them with quantize/dequantize operators on plain tensors
(`quantized_decomposed.*`), so the quantized program exports and runs without packed
parameters, quantized tensors or observers. The quantizer here reproduces the eager
scheme of `quantize_dynamic` on x86: activations quantized per call to 7 bits
(`reduce_range=True`, as fbgemm's dynamic Linear does) and int8 weights, per output
channel in this config.
"""
import torch
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
    X86InductorQuantizer,
    get_default_x86_inductor_quantization_config,
)


class TinyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = TinyClassifier().eval()  # the float model: nothing quantized yet
example_args = (torch.randn(4, 16),)


def main():
    quantizer = X86InductorQuantizer().set_global(
        get_default_x86_inductor_quantization_config(is_dynamic=True, reduce_range=True))
    graph = torch.export.export(model, example_args).module()  # 1. capture the float model
    graph = prepare_pt2e(graph, quantizer)                     # 2. insert observers
    graph(*example_args)                                       #    (dynamic: nothing to calibrate)
    graph = convert_pt2e(graph)                                # 3. quantize/dequantize ops
    exported = torch.export.export(graph, example_args)        # 4. export the quantized graph

    # The eager reference of the same quantization: quantize_dynamic with per-channel
    # int8 weights. Both quantize to the same int8 values, one computing with fbgemm's
    # integer kernels and one in float arithmetic, so they agree to float rounding (6e-8
    # measured). Tolerance 1e-5: far below the quantization error itself (about 7e-3
    # against the float model), so a different scheme or a missed layer would fail it.
    reference = torch.ao.quantization.quantize_dynamic(
        model, {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig})
    x = torch.randn(4, 16)
    with torch.no_grad():
        out, expected, float_out = exported.module()(x), reference(x), model(x)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
    print(f"ok: the PT2E-quantized program exports, runs and matches eager quantize_dynamic "
          f"(max diff {(out - expected).abs().max():.1e}; vs the float model {(out - float_out).abs().max():.1e})")


if __name__ == "__main__":
    main()
