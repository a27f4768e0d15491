"""Export where the program is loaded: keep the model's code and weights, not only the .pt2.

A .pt2 file is a build artifact of one torch release. The portable inputs are the
model's source and its state_dict (torch.save of tensors loads on any later release);
exporting and saving them again on the release that loads the program gives a file it
reads. The script does that round trip and compares the loaded program with eager.
"""
import io

import torch
from torch import nn


class SmallClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, images):
        features = torch.relu(self.conv(images)).mean(dim=(2, 3))
        return self.head(features)


torch.manual_seed(0)
model = SmallClassifier().eval()
example_args = (torch.randn(2, 3, 16, 16),)


def main():
    weights = io.BytesIO()
    torch.save(model.state_dict(), weights)  # what to keep from the release that trained it
    weights.seek(0)
    rebuilt = SmallClassifier().eval()
    rebuilt.load_state_dict(torch.load(weights, weights_only=True))
    buffer = io.BytesIO()
    torch.export.save(torch.export.export(rebuilt, example_args), buffer)  # on the loading release
    buffer.seek(0)
    program = torch.export.load(buffer)
    images = torch.randn(2, 3, 16, 16)
    torch.testing.assert_close(program.module()(images), model(images))
    print("ok: exported again on the loading release, the program loads and matches eager")


if __name__ == "__main__":
    main()
