"""The same miscompile in a patch embedding of a few lines.

Boolean-mask indexing makes the batch size data-dependent; a strided convolution then
cuts each image into patches, and `flatten(2)` lays the patches out as a sequence. Eager
and the exported program agree. The AOTInductor package returns the same numbers in
another order: the convolution's channels-last result read as if it were contiguous.
The script checks exactly that and raises.
"""
import tempfile
from pathlib import Path

import torch
from torch import nn


class PatchEmbed(nn.Module):
    """Drops all-zero padding images, then turns each image into 16 patch vectors."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, kernel_size=4, stride=4)

    def forward(self, images):
        real = images.flatten(1).abs().sum(1) > 0  # data-dependent: how many are real
        return self.proj(images[real]).flatten(2)  # (real images, 8 channels, 16 patches)


torch.manual_seed(0)
model = PatchEmbed().eval()
example_args = (torch.randn(2, 3, 16, 16),)


def main():
    exported = torch.export.export(model, example_args)
    package = Path(tempfile.mkdtemp()) / "patch_embed.pt2"
    torch._inductor.aoti_compile_and_package(exported, package_path=str(package))
    compiled = torch._inductor.aoti_load_package(str(package))
    with torch.no_grad():
        eager = model(*example_args)
        aoti = compiled(*example_args)
        conv = model.proj(example_args[0])
    if not torch.allclose(aoti, eager, atol=1e-5):
        # channels-last memory (N, H, W, C) read back as (N, C, H*W)
        reread = conv.permute(0, 2, 3, 1).contiguous().view(eager.shape)
        raise AssertionError(
            f"AOTInductor output disagrees with eager (largest difference {(aoti - eager).abs().max().item():.3f}); "
            f"it equals the channels-last result read as contiguous: {torch.allclose(aoti, reread, atol=1e-5)}"
        )
    print("AOTInductor agrees with eager")


if __name__ == "__main__":
    main()
