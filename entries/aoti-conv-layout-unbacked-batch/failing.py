"""AOTInductor returns scrambled image features when padding images are dropped first.

ModernVBERT, like other vision-language models in transformers, removes all-zero
padding images with a boolean mask (`pixel_values[real_images_inds]`) before its
vision tower, so the batch entering the patch convolution has a size known only at
run time. AOTInductor's layout optimization then runs that convolution channels-last
while the code after it reads the result as contiguous: the patch embeddings come out
in the wrong order. Compilation and loading succeed and nothing warns; the exported
program itself is correct. The script compares AOTInductor with eager and raises.
"""
import tempfile
from pathlib import Path

import torch
from transformers import ModernVBertConfig, ModernVBertModel

config = ModernVBertConfig(
    text_config={"vocab_size": 128, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
                 "cls_token_id": 1, "sep_token_id": 2},
    vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "image_size": 64, "patch_size": 16},
    image_token_id=127,
    pixel_shuffle_factor=2,  # 4x4 patches per image, merged 2x2: 4 image tokens
)
torch.manual_seed(0)
model = ModernVBertModel(config).eval()
images = torch.randn(2, 1, 3, 64, 64)  # batch of 2, one image each
tokens = torch.cat([torch.full((2, 4), 127), torch.randint(3, 120, (2, 6))], dim=1)
example_args = ()
example_kwargs = {"input_ids": tokens, "attention_mask": torch.ones_like(tokens), "pixel_values": images}


def main():
    exported = torch.export.export(model, example_args, example_kwargs)
    package = Path(tempfile.mkdtemp()) / "modernvbert.pt2"
    torch._inductor.aoti_compile_and_package(exported, package_path=str(package))
    compiled = torch._inductor.aoti_load_package(str(package))
    with torch.no_grad():
        eager = model(**example_kwargs).last_hidden_state
        program = exported.module()(**example_kwargs).last_hidden_state
        aoti = compiled(**example_kwargs).last_hidden_state
    torch.testing.assert_close(program, eager)  # the exported program is right
    image_rows = (aoti - eager)[:, :4].abs().max().item()
    if image_rows > 1e-3:
        raise AssertionError(
            f"AOTInductor output disagrees with eager: largest difference {image_rows:.3f} at the image "
            "tokens. The patch convolution on the data-dependent image batch ran channels-last while "
            "the code after it read its output as contiguous."
        )
    print("AOTInductor agrees with eager")


if __name__ == "__main__":
    main()
