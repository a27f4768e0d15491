"""The corpus's transformers builders on the companions of older torch releases.

transformers 4.56 renamed `torch_dtype=` to `dtype=` in `from_config`/`_from_config`;
the builders (transformers_models._instantiate) use the new name. On an older
companion (torch 2.8.0 and before pair with 4.55 and earlier) `dtype=` falls through
to the model's constructor, which rejects it, and every transformers model would be
recorded as a build failure that no user ever meets. Here, and only there, `dtype=`
is passed on under its old name. This lives outside the builders on purpose: it does
not change what a case is, so it does not change the cases' definition hashes.
"""
from __future__ import annotations


def accept_dtype_keyword() -> bool:
    """Make `_from_config(config, dtype=...)` work on transformers < 4.56; True if patched."""
    try:
        import transformers
        from packaging.version import Version
        from transformers import PreTrainedModel
    except Exception:  # no transformers (or it fails to import): its builders say so themselves
        return False
    if Version(transformers.__version__).release >= (4, 56):
        return False  # this transformers knows `dtype=` already
    original = PreTrainedModel.__dict__.get("_from_config")
    if not isinstance(original, classmethod) or getattr(original, "_exportkb_dtype", False):
        return False
    func = original.__func__

    def _from_config(cls, config, **kwargs):
        if "dtype" in kwargs and "torch_dtype" not in kwargs:
            kwargs["torch_dtype"] = kwargs.pop("dtype")
        return func(cls, config, **kwargs)

    patched = classmethod(_from_config)
    _from_config._exportkb_dtype = True
    patched._exportkb_dtype = True
    PreTrainedModel._from_config = patched
    return True
