"""Write the ceiling with non-negative operands only: `(time + block - 1) // block`.

For non-negative operands floor and truncation agree, so ONNX's `Div` computes the same
count as Python. The legacy export then pools 3 blocks, like eager. Exporting with
`dynamo=True` also keeps floor semantics.
"""
import io

import onnxruntime
import torch
from torch import nn


class BlockPooling(nn.Module):
    def __init__(self, block: int = 4):
        super().__init__()
        self.block = block

    def forward(self, frames):  # (batch, time, features)
        batch, time, features = frames.shape
        blocks = (time + self.block - 1) // self.block  # the same ceiling, never negative
        frames = nn.functional.pad(frames, (0, 0, 0, blocks * self.block - time))
        return frames.reshape(batch, blocks, self.block, features).mean(dim=2)


model = BlockPooling().eval()
example_args = (torch.randn(2, 10, 8),)


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, dynamo=False, input_names=["frames"])
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    frames = torch.randn(2, 10, 8)
    (pooled,) = session.run(None, {"frames": frames.numpy()})
    torch.testing.assert_close(torch.from_numpy(pooled), model(frames))
    print("ok: the legacy ONNX export pools 3 blocks and matches eager")


if __name__ == "__main__":
    main()
