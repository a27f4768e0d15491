"""Use the Vela that your executorch pins: `pip install "executorch[ethos-u]"` (1.5.1: 5.1.0).

The model, the quantizer and the lowering are those of failing.py; only Vela differs
(ethos-u-vela 5.1.0, the entry's [companions]). Vela now compiles the delegate and
`to_executorch` writes the program.

Running the Ethos-U command stream needs the NPU or Arm's Corstone simulator, which this
machine lacks. What it can check is the TOSA graph that Vela compiled: the same quantized
program is lowered to TOSA 1.0 alone and run on the TOSA reference model (in tosa-tools),
and its output must equal the quantized model's in eager mode to within one quantum.
"""
from importlib.metadata import version

import torch
from torch import nn
from torch.export import export


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def delegate_and_qparams(edge):
    """The lowered module, and the (scale, zero point) of the quantize before it and the dequantize after it."""
    gm = edge.exported_program().graph_module
    (call,) = [n for n in gm.graph.nodes if n.target is torch.ops.higher_order.executorch_call_delegate]
    lowered = getattr(gm, call.args[0].target)
    quantize = call.args[1]
    (getitem,) = call.users
    (dequantize,) = getitem.users
    return lowered, quantize.args[1:3], dequantize.args[1:3]


def main():
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
    from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    import tosa_reference_model

    torch.manual_seed(0)
    x = torch.randn(1, 3, 16, 16)
    spec = EthosUCompileSpec("ethos-u55-128")
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(export(ConvBlock().eval(), (x,)).module(), quantizer)
    prepared(x)  # calibration
    quantized = convert_pt2e(prepared)

    program = to_edge_transform_and_lower(export(quantized, (x,)), partitioner=[EthosUPartitioner(spec)])
    lowered, _, _ = delegate_and_qparams(program)
    assert lowered.backend_id == "EthosUBackend", lowered.backend_id
    pte = program.to_executorch().buffer

    # The TOSA graph Vela was given, on the reference model.
    tosa = to_edge_transform_and_lower(export(quantized, (x,)),
                                       partitioner=[TOSAPartitioner(TosaCompileSpec("TOSA-1.0+INT"))])
    lowered, (in_scale, in_zp), (out_scale, out_zp) = delegate_and_qparams(tosa)
    q_in = torch.clamp(torch.round(x / in_scale) + in_zp, -128, 127).to(torch.int8)
    outputs, status = tosa_reference_model.run(lowered.processed_bytes, [q_in.numpy()])
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID, status
    got = (torch.from_numpy(outputs[0]).float() - out_zp) * out_scale
    expected = quantized(x)
    worst = (got - expected).abs().max().item()
    assert worst <= out_scale + 1e-6, f"TOSA reference output differs from the quantized model by {worst}"
    print(f"ok: Vela {version('ethos-u-vela')} compiled the Ethos-U55 delegate ({len(pte)}-byte program), and its TOSA graph "
          f"matches the quantized model on the TOSA reference model (max difference {worst:.4f}, one quantum {out_scale:.4f})")


if __name__ == "__main__":
    main()
