"""Exporting at opset 16, the first opset with ONNX GridSample, makes grid_sample exportable."""
import io

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn


class FlowWarp(nn.Module):
    def __init__(self, height: int = 8, width: int = 8):
        super().__init__()
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, height), torch.linspace(-1, 1, width), indexing="ij")
        self.register_buffer("base_grid", torch.stack((xs, ys), dim=-1).unsqueeze(0))

    def forward(self, image, flow):
        grid = self.base_grid + flow.permute(0, 2, 3, 1)
        return F.grid_sample(image, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


model = FlowWarp().eval()
example_args = (torch.randn(1, 3, 8, 8), 0.1 * torch.randn(1, 2, 8, 8))


def main():
    buffer = io.BytesIO()
    torch.onnx.export(model, example_args, buffer, opset_version=16, dynamo=False,
                      input_names=["image", "flow"], output_names=["warped"])

    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    image, flow = example_args
    (warped,) = session.run(None, {"image": image.numpy(), "flow": flow.numpy()})
    with torch.no_grad():
        expected = model(*example_args).numpy()
    assert np.allclose(warped, expected, rtol=1e-4, atol=1e-5), np.abs(warped - expected).max()
    print("ok: opset 16 export runs in onnxruntime and matches eager")


if __name__ == "__main__":
    main()
