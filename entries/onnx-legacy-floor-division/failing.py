"""The TorchScript-based ONNX exporter rounds integer floor division toward zero.

`-(-time // block)` is the usual integer ceiling: the number of blocks that hold `time`
frames. Python floors `-10 // 4` to -3, so the model makes 3 blocks of 4. The legacy
exporter writes the size arithmetic as ONNX `Div` on int64, which onnxruntime computes by
truncation: -10 / 4 gives -2, the ceiling comes out as 2, and the exported model pads and
pools 2 blocks instead of 3. Nothing fails at export; the output has the wrong shape.
"""
import io

import onnxruntime
import torch
from torch import nn


class BlockPooling(nn.Module):
    """Pads the frames to whole blocks and averages each block, as a blockwise encoder does."""

    def __init__(self, block: int = 4):
        super().__init__()
        self.block = block

    def forward(self, frames):  # (batch, time, features)
        batch, time, features = frames.shape
        blocks = -(-time // self.block)  # ceil(time / block) in integers
        frames = nn.functional.pad(frames, (0, 0, 0, blocks * self.block - time))
        return frames.reshape(batch, blocks, self.block, features).mean(dim=2)


model = BlockPooling().eval()
example_args = (torch.randn(2, 10, 8),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["frames"])
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    (pooled,) = session.run(None, {"frames": example_args[0].numpy()})
    eager = model(*example_args)
    if tuple(pooled.shape) != tuple(eager.shape):
        raise AssertionError(
            "legacy ONNX export rounds -(-time // block) toward zero: "
            f"eager returns shape {tuple(eager.shape)}, onnxruntime {tuple(pooled.shape)}")
    torch.testing.assert_close(torch.from_numpy(pooled), eager)


if __name__ == "__main__":
    main()
