"""Turning off Inductor's layout optimization for the package makes it agree with eager.

`layout_optimization` lets Inductor run convolutions channels-last. With it off, the
convolution on the data-dependent image batch keeps the contiguous layout that the code
after it expects, and the AOTInductor package of the ModernVBERT model from failing.py
returns eager's numbers. Only this one compilation is affected: the option is passed
through `inductor_configs`, not set globally.
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
    pixel_shuffle_factor=2,
)
torch.manual_seed(0)
model = ModernVBertModel(config).eval()
images = torch.randn(2, 1, 3, 64, 64)
tokens = torch.cat([torch.full((2, 4), 127), torch.randint(3, 120, (2, 6))], dim=1)
example_args = ()
example_kwargs = {"input_ids": tokens, "attention_mask": torch.ones_like(tokens), "pixel_values": images}


def main():
    exported = torch.export.export(model, example_args, example_kwargs)
    package = Path(tempfile.mkdtemp()) / "modernvbert.pt2"
    torch._inductor.aoti_compile_and_package(
        exported, package_path=str(package), inductor_configs={"layout_optimization": False}
    )
    compiled = torch._inductor.aoti_load_package(str(package))
    with torch.no_grad():
        torch.testing.assert_close(compiled(**example_kwargs).last_hidden_state,
                                   model(**example_kwargs).last_hidden_state)
        fresh = {**example_kwargs, "pixel_values": torch.randn_like(images)}
        torch.testing.assert_close(compiled(**fresh).last_hidden_state, model(**fresh).last_hidden_state)
    print("ok: with layout_optimization off, the AOTInductor package agrees with eager on two image batches")


if __name__ == "__main__":
    main()
