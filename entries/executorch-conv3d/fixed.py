"""Run the space-time patch embedding as a 2-D convolution.

When the temporal kernel equals the temporal stride (non-overlapping patches, no
temporal padding), each group of `kt` frames is one independent patch row: fold those
frames into the channel dimension and apply a Conv2d whose weight is the Conv3d weight
reshaped to `(out, in * kt, kh, kw)`. The result is the same, and the portable kernels
run it.
"""
import copy
import tempfile
from pathlib import Path

import torch
from torch import nn


class PatchEmbed3dAs2d(nn.Module):
    """Computes a Conv3d with kernel_size == stride along time using conv2d."""

    def __init__(self, conv3d: nn.Conv3d):
        super().__init__()
        assert conv3d.kernel_size[0] == conv3d.stride[0] and conv3d.padding[0] == 0
        out_ch, in_ch, kt, kh, kw = conv3d.weight.shape
        self.kt = kt
        self.conv = nn.Conv2d(in_ch * kt, out_ch, (kh, kw), stride=conv3d.stride[1:], padding=conv3d.padding[1:],
                              bias=conv3d.bias is not None)
        with torch.no_grad():
            self.conv.weight.copy_(conv3d.weight.reshape(out_ch, in_ch * kt, kh, kw))
            if conv3d.bias is not None:
                self.conv.bias.copy_(conv3d.bias)

    def forward(self, video):
        b, c, t, h, w = video.shape
        groups = t // self.kt
        frames = video.reshape(b, c, groups, self.kt, h, w).permute(0, 2, 1, 3, 4, 5)
        out = self.conv(frames.reshape(b * groups, c * self.kt, h, w))
        return out.reshape(b, groups, *out.shape[1:]).transpose(1, 2)


class TinyVideoClassifier(nn.Module):
    def __init__(self, num_classes: int = 5):
        super().__init__()
        self.patch_embed = nn.Conv3d(3, 16, kernel_size=(2, 4, 4), stride=(2, 4, 4))
        self.head = nn.Linear(16, num_classes)

    def forward(self, video):
        tokens = self.patch_embed(video).flatten(2).transpose(1, 2)
        return self.head(tokens.mean(dim=1))


original = TinyVideoClassifier().eval()  # with its Conv3d, for the comparison
model = copy.deepcopy(original)
model.patch_embed = PatchEmbed3dAs2d(original.patch_embed)
example_args = (torch.randn(2, 3, 4, 16, 16),)


def main():
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    exported = torch.export.export(model, example_args)
    program = to_edge_transform_and_lower(exported).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(str(path)).load_method("forward")
        video = torch.randn(2, 3, 4, 16, 16)
        (logits,) = method.execute([video])

    with torch.no_grad():
        torch.testing.assert_close(logits, model(video))
        torch.testing.assert_close(logits, original(video))
    print("ok: the ExecuTorch program runs and matches the eager Conv3d model")


if __name__ == "__main__":
    main()
