"""A fixed signature: the feature maps as one List[Tensor] argument, the option positional."""
import io
from typing import List

import torch
from torch import nn


class FusionHead(nn.Module):
    def __init__(self, dim: int = 4, branches: int = 2):
        super().__init__()
        self.proj = nn.Linear(dim * branches, 3)

    def forward(self, features: List[torch.Tensor], scale: float = 1.0):
        return self.proj(torch.cat(features, dim=-1)) * scale


model = FusionHead().eval()
example_args = ([torch.randn(2, 4), torch.randn(2, 4)],)


def main():
    scripted = torch.jit.script(model)
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    buffer.seek(0)
    loaded = torch.jit.load(buffer)
    features = [torch.randn(5, 4), torch.randn(5, 4)]
    torch.testing.assert_close(loaded(features, 0.5), model(features, 0.5))
    print("ok: the scripted module with a List[Tensor] argument matches eager after save and load")


if __name__ == "__main__":
    main()
