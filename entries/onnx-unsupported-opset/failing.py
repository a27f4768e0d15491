"""The legacy ONNX exporter can emit an operator only at opsets where ONNX defines an equivalent.

The model warps an image by an optical-flow field, as flow and frame-interpolation
networks do: the flow is added to a base sampling grid and `F.grid_sample` reads the
image there. ONNX has had `GridSample` only since opset 16, so exporting with
`opset_version=15` fails.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn


class FlowWarp(nn.Module):
    def __init__(self, height: int = 8, width: int = 8):
        super().__init__()
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, height), torch.linspace(-1, 1, width), indexing="ij")
        self.register_buffer("base_grid", torch.stack((xs, ys), dim=-1).unsqueeze(0))  # (1, H, W, 2)

    def forward(self, image, flow):
        grid = self.base_grid + flow.permute(0, 2, 3, 1)  # flow: (N, 2, H, W) in [-1, 1] units
        return F.grid_sample(image, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


model = FlowWarp().eval()
example_args = (torch.randn(1, 3, 8, 8), 0.1 * torch.randn(1, 2, 8, 8))


def main():
    torch.onnx.export(model, example_args, io.BytesIO(), opset_version=15, dynamo=False)  # fails


if __name__ == "__main__":
    main()
