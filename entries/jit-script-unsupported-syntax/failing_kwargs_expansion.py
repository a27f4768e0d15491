"""TorchScript cannot expand a dict into keyword arguments: f(**features).

A call is compiled against the callee's fixed signature, and `**features` leaves the
argument names to run time, so the frontend rejects the expansion. timm's NaFlexViT
passes its features to forward_head this way.
"""
from typing import Dict

import torch
from torch import nn


class MaskedPoolHead(nn.Module):
    def __init__(self, dim: int = 8, classes: int = 3):
        super().__init__()
        self.embed = nn.Linear(dim, dim)
        self.fc = nn.Linear(dim, classes)

    def forward_features(self, x, valid) -> Dict[str, torch.Tensor]:
        return {"patches": self.embed(x), "patch_valid": valid}

    def forward_head(self, patches, patch_valid):
        w = patch_valid.to(patches.dtype).unsqueeze(-1)
        pooled = (patches * w).sum(1) / w.sum(1).clamp(min=1.0)
        return self.fc(pooled)

    def forward(self, x, valid):
        features = self.forward_features(x, valid)
        return self.forward_head(**features)


model = MaskedPoolHead().eval()
example_args = (torch.randn(2, 5, 8), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]).bool())


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
