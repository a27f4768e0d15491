"""torch.jit.script gives the same program and the same failure on the second call."""
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
    scripted = torch.jit.script(model)
    scripted(torch.randn(2, 10, 16))
    scripted(torch.randn(2, 10, 16))


if __name__ == "__main__":
    main()
