"""Helpers shared by the corpus sources: dynamic dims, input descriptions, the eager check.

Every source verifies a case by running it eagerly before handing it over. A case whose
eager forward already fails says nothing about any exporter, so that failure is raised
from `build()` and recorded as a `build` outcome, apart from export failures.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

import torch


class BuildError(RuntimeError):
    """A model (or inputs for it) cannot be built; the message says why."""


# Declared dims use Dim.DYNAMIC: export raises when the model specializes the dim to a
# constant (the failure the corpus is looking for) but accepts range refinements such
# as `seq <= max_position_embeddings` that a model legitimately implies.
# Releases before it (torch 2.4) had only named Dims, which also refuse those refinements:
# their outcomes would not compare with later releases'. There the builders declare no
# dynamic dims (`dynamic_spec` gives None) and export-dynamic is skipped.
HAS_DYNAMIC_HINT = hasattr(torch.export.Dim, "DYNAMIC")


def batch_dim():
    return torch.export.Dim.DYNAMIC


def seq_dim():
    return torch.export.Dim.DYNAMIC


def dynamic_spec(make: Callable[[], Any]) -> Any:
    """The dynamic_shapes `make()` declares, or None on a release without Dim.DYNAMIC."""
    return make() if HAS_DYNAMIC_HINT else None


def describe(obj: Any) -> Any:
    """A JSON-able description of inputs (shapes and dtypes, not values)."""
    if isinstance(obj, torch.Tensor):
        return {"shape": list(obj.shape), "dtype": str(obj.dtype).removeprefix("torch.")}
    if isinstance(obj, dict):
        return {str(k): describe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [describe(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return type(obj).__name__


def describe_dynamic(spec: Any) -> Any:
    """dynamic_shapes as JSON: a DimHint becomes its name ("DYNAMIC"), a Dim its str."""
    if isinstance(spec, dict):
        return {str(k): describe_dynamic(v) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [describe_dynamic(v) for v in spec]
    if spec is None:
        return None
    hint = getattr(spec, "type", None)
    return getattr(hint, "name", None) or str(spec)


def run_eager(model, args: tuple, kwargs: dict | None = None):
    with torch.no_grad():
        return model(*args, **(kwargs or {}))


def check_eager(model, args: tuple, kwargs: dict | None, what: str = "example inputs") -> None:
    """Raise BuildError when the eager forward fails, keeping the original as the cause."""
    try:
        run_eager(model, args, kwargs)
    except Exception as exc:
        raise BuildError(f"eager forward on the {what} fails: {type(exc).__name__}: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else "")[:400]


# --- Inputs for transformers models ---------------------------------------------------
# Derived from the model's main input name and its config. Several layouts are tried in
# turn (audio features are (batch, mel, frames) for whisper but (batch, frames, feat)
# for speech2text); the first that runs eagerly wins. Batch 2 and sequence 8, so that no
# 0/1 specialization hides a dynamic-shape problem; the alternative inputs use batch 3
# and sequence 12 to check that an export generalises.
BATCH, SEQ, ALT_BATCH, ALT_SEQS = 2, 8, 3, (12, 16, 8)


@dataclass
class HFInputs:
    kwargs: dict
    dynamic_shapes: dict
    alt_kwargs: dict | None
    kind: str  # text | seq2seq | vision | video | audio | multimodal | ...


def _sub(config, *names):
    for name in names:
        sub = getattr(config, name, None)
        if sub is not None:
            return sub
    return None


def _get(config, key, default=None, subs=("vision_config", "audio_config", "encoder_config", "encoder", "text_config")):
    """A config value, looked up on the config then on its sub-configs."""
    value = getattr(config, key, None)
    if value is None:
        for name in subs:
            sub = getattr(config, name, None)
            value = getattr(sub, key, None) if sub is not None else None
            if value is not None:
                break
    return default if value is None else value


def _special_ids(config, seen=None) -> set[int]:
    seen = set() if seen is None else seen
    ids = set()
    for k, v in vars(config).items():
        if hasattr(v, "to_dict") and id(v) not in seen:
            seen.add(id(v))
            ids |= _special_ids(v, seen)
        elif k.endswith(("token_id", "token_index", "token_ids")):
            for x in v if isinstance(v, list) else [v]:
                if isinstance(x, int) and not isinstance(x, bool):
                    ids.add(x)
    return ids


class _Maker:
    """Builds one input layout for a given batch and sequence length."""

    def __init__(self, model, config):
        self.model, self.config = model, config
        text = _sub(config, "text_config", "decoder") or config
        self.vocab = int(_get(text, "vocab_size", 0) or _get(config, "vocab_size", 0) or 100)
        special = _special_ids(config)
        self.tokens = torch.tensor([t for t in range(3, self.vocab) if t not in special] or [0])
        self.params = inspect.signature(model.forward).parameters

    def ids(self, b, s, seed):
        g = torch.Generator().manual_seed(seed)
        return self.tokens[torch.randint(len(self.tokens), (b, s), generator=g)]

    def image(self, b, video_frames=None, size=None):
        c = int(_get(self.config, "num_channels", 3) or 3)
        size = size or _get(self.config, "image_size", 64)
        h, w = (size, size) if isinstance(size, int) else tuple(size)[:2]
        g = torch.Generator().manual_seed(b)
        shape = (b, video_frames, c, h, w) if video_frames else (b, c, h, w)
        return torch.rand(shape, generator=g)

    def text(self, b, s):
        kw, dims = {"input_ids": self.ids(b, s, 1)}, {"input_ids": (0, 1)}
        if "attention_mask" in self.params:
            kw["attention_mask"], dims["attention_mask"] = torch.ones(b, s, dtype=torch.long), (0, 1)
        if "bbox" in self.params:  # layout models: one (x0, y0, x1, y1) box per token
            g = torch.Generator().manual_seed(5)
            corner = torch.randint(0, 500, (b, s, 2), generator=g)
            kw["bbox"], dims["bbox"] = torch.cat([corner, corner + 100], dim=-1), (0, 1)
        return kw, dims

    def decoder(self, kw, dims, b, s):
        if "decoder_input_ids" in self.params and getattr(self.config, "is_encoder_decoder", False):
            start = getattr(self.config, "decoder_start_token_id", None)
            dec = self.ids(b, max(2, s // 2), 2)
            if isinstance(start, int):
                dec[:, 0] = start
            kw["decoder_input_ids"], dims["decoder_input_ids"] = dec, (0, 1)
        return kw, dims


def _image_token_id(config):
    for key in ("image_token_id", "image_token_index"):
        for cfg in (config, getattr(config, "text_config", None)):
            value = getattr(cfg, key, None) if cfg is not None else None
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def _tensors(out) -> list:
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "pooler_output") and getattr(out, "pooler_output", None) is not None:
        return _tensors(out.pooler_output)
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()[:1]
    if isinstance(out, (list, tuple)):
        return [t for x in out for t in _tensors(x)]
    return []


def _tokens_per_image(model, config, pixel_values) -> int | None:
    """How many image tokens the text must hold for one image: counted from the features."""
    fn = getattr(model, "get_image_features", None) or getattr(getattr(model, "model", None), "get_image_features", None)
    text = getattr(config, "text_config", None) or config
    hidden = getattr(text, "hidden_size", None)
    if fn is None or not hidden:
        return None
    with torch.no_grad():
        features = _tensors(fn(pixel_values=pixel_values))
    total = sum(t.numel() for t in features)
    per_image, rest = divmod(total, hidden * pixel_values.shape[0])
    return per_image if per_image and not rest else None


def _layouts(model, config):
    """(kind, make(batch, seq) -> (kwargs, {name: dynamic axes})) in order of preference."""
    m = _Maker(model, config)
    main = getattr(model, "main_input_name", "input_ids")
    main = main[0] if isinstance(main, (list, tuple)) else main  # oneformer names two
    p = m.params
    frames = _get(config, "num_frames")

    def layout(kind, fn):
        def make(b, s):
            kw, dims = fn(b, s)
            return m.decoder(kw, dims, b, s)
        return kind, make

    # Text and image together (CLIP, BLIP, LLaVA-style models): the image tokens in the
    # text must match the image features, so they are counted first.
    if "input_ids" in p and "pixel_values" in p and (main in ("input_ids", "pixel_values")):
        image_token = _image_token_id(config)
        for video in ((None, 1) if not frames else (int(frames), None, 1)):
            def mm(b, s, video=video):
                pv = m.image(b, video)
                kw, dims = m.text(b, s)
                if image_token is not None:
                    n = _tokens_per_image(model, config, pv)
                    if n is None:
                        raise BuildError("cannot count the image tokens")
                    img = torch.full((b, n), image_token, dtype=torch.long)
                    kw["input_ids"] = torch.cat([img, kw["input_ids"]], dim=1)
                    if "attention_mask" in kw:
                        kw["attention_mask"] = torch.ones_like(kw["input_ids"])
                kw["pixel_values"], dims["pixel_values"] = pv, (0,)
                return kw, dims
            yield layout("multimodal", mm)
    if main == "input_ids" or main not in p:
        yield layout("text", m.text)
    if main in ("pixel_values", "pixel_values_videos") or (main not in p and "pixel_values" in p):
        name = main if main in p else "pixel_values"
        if frames or main == "pixel_values_videos":
            frames = frames or 4
            yield layout("video", lambda b, s: ({name: m.image(b, int(frames))}, {name: (0,)}))
        yield layout("vision", lambda b, s: ({name: m.image(b)}, {name: (0,)}))
        # detectors rank a fixed number of queries over the feature map: too few at 64 px
        yield layout("vision", lambda b, s: ({name: m.image(b, size=256)}, {name: (0,)}))
    if main == "input_features":
        mel = int(_get(config, "num_mel_bins", 0) or _get(config, "feature_size", 0) or 80)
        src = _get(config, "max_source_positions")
        n_frames = 2 * int(src) if src else 64
        feat = int(_get(config, "input_feat_per_channel", 0) or mel) * int(_get(config, "input_channels", 1) or 1)
        feat = int(_get(config, "feature_projection_input_dim", 0) or feat)  # stacked frames (w2v-bert)
        g = torch.Generator().manual_seed(3)
        yield layout("audio", lambda b, s: ({main: torch.randn(b, mel, n_frames, generator=g)}, {main: (0,)}))
        yield layout("audio", lambda b, s: ({main: torch.randn(b, 64, feat, generator=g)}, {main: (0,)}))
    if main in ("input_features", "input_values"):
        # spectrogram patches (AST, CLAP): (batch, frames, mel), or with a channel dim
        mel = int(_get(config, "num_mel_bins", 0) or _get(config, "feature_size", 0) or 64)
        n = int(_get(config, "max_length", 0) or 64)
        g = torch.Generator().manual_seed(3)
        yield layout("audio", lambda b, s: ({main: torch.randn(b, n, mel, generator=g)}, {main: (0,)}))
        yield layout("audio", lambda b, s: ({main: torch.randn(b, 1, n, mel, generator=g)}, {main: (0,)}))
    if main in ("input_values", "inputs"):
        g = torch.Generator().manual_seed(4)
        yield layout("audio", lambda b, s: ({main: torch.randn(b, 3200, generator=g)}, {main: (0,)}))
        ch = int(_get(config, "audio_channels", 1) or 1)
        yield layout("audio", lambda b, s: ({main: torch.randn(b, ch, 3200, generator=g)}, {main: (0,)}))
    if main != "input_ids" and "input_ids" in p:
        yield layout("text", m.text)  # a multimodal model run on text alone
    # Fallbacks for models whose main input the layouts above do not name: vision towers
    # and encoders exported on their own. They come last so that a model an earlier
    # layout runs keeps the inputs it was collected with.
    yield from _fallback_layouts(m, config, main, layout)


def _first_required(params) -> str | None:
    return next((n for n, q in params.items() if q.default is inspect.Parameter.empty
                 and q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY)), None)


def _fallback_layouts(m: _Maker, config, main: str, layout):
    p = m.params
    first = _first_required(p)
    g = torch.Generator().manual_seed(6)
    if "grid_thw" in p and first:
        # Qwen-VL-style towers take the image already cut into flattened patches, one
        # row per (temporal patch, patch row, patch column), and each image's grid.
        patch = int(_get(config, "patch_size", 14) or 14)
        temporal = int(_get(config, "temporal_patch_size", 1) or 1)
        channels = int(_get(config, "in_channels", 0) or _get(config, "num_channels", 3) or 3)
        side = 4 * int(_get(config, "spatial_merge_size", 1) or 1)

        def patches(b, s):
            grid = torch.tensor([[1, side, side]] * b)
            rows = torch.randn(b * side * side, channels * temporal * patch * patch, generator=g)
            return {first: rows, "grid_thw": grid}, {first: (0,), "grid_thw": (0,)}
        yield layout("vision-patches", patches)
    if main == "past_values" or first == "past_values":
        # time-series models: (batch, context length, channels)
        length = int(_get(config, "context_length", 32) or 32)
        length = length if length <= 512 else 2 * int(_get(config, "patch_length", 16) or 16)
        chans = int(_get(config, "num_input_channels", 1) or 1)
        yield layout("time-series", lambda b, s: ({"past_values": torch.randn(b, length, chans, generator=g)},
                                                  {"past_values": (0,)}))
        yield layout("time-series", lambda b, s: ({"past_values": torch.randn(b, length, generator=g)},
                                                  {"past_values": (0,)}))
    name = first or main
    if name in ("hidden_states", "input") or (name == "pixel_values" and main != "pixel_values"):
        yield layout("vision", lambda b, s: ({name: m.image(b)}, {name: (0,)}))  # an image under another name
    if name in ("inputs_embeds", "hidden_states"):
        # a sequence of features, (batch, seq, width) or (batch, width, seq), as wide as
        # the encoder's input (speech encoders) or its hidden size
        for key in ("input_dim", "hidden_size"):
            width = int(_get(config, key, 0) or 0)
            if width:
                yield layout("embeddings", lambda b, s, w=width: ({name: torch.randn(b, s, w, generator=g)},
                                                                   {name: (0, 1)}))
                yield layout("embeddings", lambda b, s, w=width: ({name: torch.randn(b, w, s, generator=g)},
                                                                   {name: (0, 2)}))


def hf_case_inputs(model, config) -> HFInputs:
    errors = []
    for kind, make in _layouts(model, config):
        try:
            kwargs, axes = make(BATCH, SEQ)
            run_eager(model, (), kwargs)
        except Exception as exc:
            errors.append(f"{kind}: {type(exc).__name__}: {_first_line(exc)}")
            continue
        alt = None
        for seq in ALT_SEQS:
            try:
                candidate, _ = make(ALT_BATCH, seq)
                run_eager(model, (), candidate)
            except Exception:
                continue
            alt = candidate
            break
        dynamic = dynamic_spec(lambda: {name: {a: (batch_dim() if a == 0 else seq_dim()) for a in ax}
                                        for name, ax in axes.items()})
        return HFInputs(kwargs, dynamic, alt, kind)
    main = getattr(model, "main_input_name", "?")
    if not errors:
        raise BuildError(f"no input layout for main input '{main}' of {type(model).__name__}")
    raise BuildError(f"no input layout runs {type(model).__name__} (main input '{main}'): " + " | ".join(errors))
