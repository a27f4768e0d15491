"""Run the loaded program for inference under torch.inference_mode() (or torch.no_grad()).

Without gradient tracking, TorchScript runs a graph with no autodiff regions, and the
in-place write is an ordinary operation. The program is called several times and each
result compared with eager.
"""
import io

import torch
from torch import nn


class BoxHead(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, 4))
        self.ref = nn.Linear(dim, 2)

    def forward(self, queries):
        reference = torch.logit(self.ref(queries).sigmoid(), eps=1e-5)
        boxes = self.mlp(queries)
        boxes[..., :2] += reference
        return boxes.sigmoid()


model = BoxHead().eval()
example_args = (torch.randn(2, 10, 16),)


def main():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(model, example_args), buf)
    buf.seek(0)
    program = torch.jit.load(buf)
    with torch.inference_mode():
        for batch in (2, 3, 1, 4):
            queries = torch.randn(batch, 10, 16)
            torch.testing.assert_close(program(queries), model(queries))
    print("ok: under inference_mode the loaded program matches eager on four calls in a row")


if __name__ == "__main__":
    main()
