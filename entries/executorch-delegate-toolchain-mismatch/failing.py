"""The Ethos-U delegate writes TOSA 1.0, and an older Vela compiler reads only TOSA 0.80.

ExecuTorch's Arm backend lowers the quantized graph to TOSA, then hands the TOSA file to
Vela, Arm's compiler for the Ethos-U NPUs, a separate pip package (`ethos-u-vela`).
executorch 1.5.1 writes TOSA 1.0; Vela before 4.4.0 reads only TOSA 0.80, so
`to_edge_transform_and_lower` stops inside Vela. This script runs with ethos-u-vela 4.3.0
(the entry's [companions]); the same code compiles with the Vela that executorch pins.
"""
import torch
from torch import nn
from torch.export import export


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def main():
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    spec = EthosUCompileSpec("ethos-u55-128")
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(export(ConvBlock().eval(), (x,)).module(), quantizer)
    prepared(x)  # calibration
    quantized = convert_pt2e(prepared)

    # Vela compiles the delegate here, and refuses the TOSA 1.0 file.
    to_edge_transform_and_lower(export(quantized, (x,)), partitioner=[EthosUPartitioner(spec)])


if __name__ == "__main__":
    main()
