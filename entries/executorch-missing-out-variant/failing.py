"""A custom op with only a functional form stops to_executorch: it has no out variant.

ExecuTorch runs every operator in its "out" form, writing into memory planned ahead of
time, so `to_executorch` replaces each call with the operator's `.out` overload. The
feed-forward block calls `mylib::scaled_clamp`, defined with `torch.library.custom_op`,
which registers the functional overload only. Export and Edge lowering accept it; the
out-variant pass does not find `mylib::scaled_clamp.out` and stops.
"""
import torch
from torch import nn


@torch.library.custom_op("mylib::scaled_clamp", mutates_args=())
def scaled_clamp(x: torch.Tensor, scale: float) -> torch.Tensor:
    return x.clamp(-1.0, 1.0) * scale


@scaled_clamp.register_fake
def _(x, scale):
    return torch.empty_like(x)


class ClampedFeedForward(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.ops.mylib.scaled_clamp(self.up(x), 2.0))


model = ClampedFeedForward().eval()
example_args = (torch.randn(2, 6, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, example_args)
    edge = to_edge_transform_and_lower(exported)
    edge.to_executorch()  # fails: mylib::scaled_clamp has no .out overload


if __name__ == "__main__":
    main()
