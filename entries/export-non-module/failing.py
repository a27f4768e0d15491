"""torch.export only accepts an nn.Module, not a bound method of a predictor object.

SAM2's `SAM2ImagePredictor` is a plain Python class that wraps the network; its
tensor work happens in the `_predict` method. Passing `predictor._predict` to
torch.export fails before any tracing. The predictor here is a small stand-in
with the same shape of API: point prompts in, mask logits and scores out.
"""
import torch
from torch import nn


class TinyMaskDecoder(nn.Module):
    def __init__(self, dim: int = 16, num_masks: int = 3, mask_size: int = 8):
        super().__init__()
        self.num_masks = num_masks
        self.mask_size = mask_size
        self.point_embed = nn.Linear(2, dim)
        self.label_embed = nn.Embedding(2, dim)
        self.to_masks = nn.Linear(dim, num_masks * mask_size * mask_size)
        self.to_scores = nn.Linear(dim, num_masks)

    def forward(self, point_coords, point_labels):
        tokens = self.point_embed(point_coords) + self.label_embed(point_labels)
        pooled = tokens.mean(dim=1)
        masks = self.to_masks(pooled).view(-1, self.num_masks, self.mask_size, self.mask_size)
        return masks, self.to_scores(pooled)


class TinyImagePredictor:
    """Not an nn.Module: holds the network and prompt-handling logic, like SAM2ImagePredictor."""

    def __init__(self, image_size: int = 64):
        self.model = TinyMaskDecoder().eval()
        self.image_size = image_size

    def _predict(self, point_coords, point_labels, multimask_output: bool = True):
        coords = point_coords / self.image_size  # normalize pixel coordinates to [0, 1]
        masks, scores = self.model(coords, point_labels)
        if not multimask_output:
            best = scores.argmax(dim=1)
            masks = masks[torch.arange(masks.shape[0]), best].unsqueeze(1)
            scores = scores.max(dim=1, keepdim=True).values
        return masks, scores


predictor = TinyImagePredictor()
model = predictor._predict  # a bound method, which is what gets passed to torch.export
example_args = (torch.tensor([[[10.0, 20.0], [30.0, 40.0]]]), torch.tensor([[1, 0]]))
example_kwargs = {"multimask_output": True}


def main():
    # fails: torch.export requires an nn.Module
    torch.export.export(model, example_args, example_kwargs)


if __name__ == "__main__":
    main()
