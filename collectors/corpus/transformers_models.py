"""Every transformers model type, built from its default config shrunk to tiny sizes.

One case per entry of `transformers.CONFIG_MAPPING` (about 804 types). For each type we
pick the model class a user would export (its generation or task head, falling back to
the bare model), shrink the default config (`tiny_config`), build the model with random
weights (nothing is downloaded: there is no network, and weights do not change how a
model exports) and derive its inputs from its main input name and config
(`inputs.hf_case_inputs`).
The default cache settings are kept, because that is how users run these models.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
from functools import lru_cache

from .base import Case, ModelSpec
from .inputs import BuildError, describe, describe_dynamic
from .torchvision_compat import import_torchvision

SOURCE = "transformers"

# The head a user would export, in order of preference. Seq2seq and speech heads come
# before the causal LM: for bart or whisper the causal LM is only the decoder half.
_HEADS = (
    "AutoModelForSeq2SeqLM", "AutoModelForSpeechSeq2Seq", "AutoModelForCausalLM",
    "AutoModelForImageTextToText", "AutoModelForMultimodalLM", "AutoModelForZeroShotImageClassification",
    "AutoModelForImageClassification",
    "AutoModelForCTC", "AutoModelForSequenceClassification", "AutoModelForAudioClassification",
    "AutoModelForObjectDetection", "AutoModelForSemanticSegmentation", "AutoModelForUniversalSegmentation",
    "AutoModelForDepthEstimation", "AutoModelForMaskGeneration", "AutoModelForTextToWaveform",
    "AutoModelForTextToSpectrogram", "AutoModelForTimeSeriesPrediction", "AutoModelForVideoClassification",
    "AutoModelForZeroShotObjectDetection", "AutoModel",
)
# Types with no auto class at all are sub-models (e.g. `clip_text_model`); their class
# is the one in the type's modeling module that takes the type's config class.
SUBMODEL = "submodel"
# Keys of config.to_dict() that say nothing about the model built.
_NOISY = {"transformers_version", "_name_or_path", "architectures", "id2label", "label2id", "dtype",
          "torch_dtype", "output_attentions", "output_hidden_states", "return_dict", "_commit_hash",
          "_attn_implementation_autoset", "problem_type", "chunk_size_feed_forward"}


def _setup() -> None:
    # Some transformers model modules import torchvision; it must go through the
    # compat import first. Where torchvision is not installed at all (the release venvs
    # of exportkb compat), those model types fail to build and the others are unaffected.
    # Nothing may try the Hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if importlib.util.find_spec("torchvision") is not None:
        import_torchvision()


@lru_cache(maxsize=1)
def _head_mappings() -> list[tuple[str, dict]]:
    """(auto class name, {model_type: class name}) for every auto class, preferred first."""
    import transformers.models.auto.modeling_auto as ma

    found = {}
    for name in dir(ma):
        mapping = getattr(getattr(ma, name), "_model_mapping", None)
        if name.startswith("Auto") and mapping is not None and isinstance(getattr(mapping, "_model_mapping", None), dict):
            found[name] = mapping._model_mapping
    ordered = [h for h in _HEADS if h in found] + sorted(set(found) - set(_HEADS))
    return [(h, found[h]) for h in ordered]


def choose_head(model_type: str) -> tuple[str, str | None]:
    """(auto class name, model class name) a user would export for this type."""
    heads = dict(_head_mappings())
    # Encoders such as bert list a causal-LM head too (BertLMHeadModel), but users
    # export them as encoders: their masked-LM head marks them.
    encoder = model_type in heads.get("AutoModelForMaskedLM", {})
    for auto, mapping in _head_mappings():
        if auto == "AutoModelForCausalLM" and encoder:
            continue
        if model_type in mapping:
            cls = mapping[model_type]
            return auto, cls[0] if isinstance(cls, (list, tuple)) else cls
    return SUBMODEL, None


def list_models() -> list[ModelSpec]:
    from transformers import CONFIG_MAPPING

    # len() of the lazy mapping is 0: iterate its keys.
    return [ModelSpec(SOURCE, t, choose_head(t)[0]) for t in list(CONFIG_MAPPING.keys())]


def _modeling_module(config):
    """The modeling module next to the config's module (configuration_x -> modeling_x)."""
    name = type(config).__module__.replace(".configuration_", ".modeling_")
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise BuildError(f"no modeling module {name} for {type(config).__name__}: {exc}") from exc


def _takes(cls, config_cls) -> bool:
    # v5 declares the config class as an annotation (`config: XConfig`); older classes
    # as `config_class`; plain nn.Module parts only in their __init__ signature.
    declared = [getattr(cls, "config_class", None), inspect.get_annotations(cls).get("config")]
    try:
        declared.append(inspect.signature(cls.__init__).parameters["config"].annotation)
    except (KeyError, ValueError, TypeError):
        pass
    return any(d is config_cls or (isinstance(d, str) and d.split(".")[-1] == config_cls.__name__) for d in declared)


def _model_class(config, class_name: str | None):
    import torch
    import transformers

    if class_name:
        cls = getattr(transformers, class_name, None) or getattr(_modeling_module(config), class_name, None)
        if cls is None:
            raise BuildError(f"transformers has no class {class_name}")
        return cls
    module = _modeling_module(config)
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, torch.nn.Module) and obj.__module__ == module.__name__
             and _takes(obj, type(config))]
    if not found:
        raise BuildError(f"no model class in {module.__name__} takes {type(config).__name__} (a type with no auto class)")
    # The pretrained-model classes first (they are what gets exported); then the shortest name.
    pretrained = [c for c in found if hasattr(c, "_from_config")]
    return sorted(pretrained or found, key=lambda c: (len(c.__name__), c.__name__))[0]


def _instantiate(cls, auto: str, config):
    import torch
    import transformers

    # transformers 4.56 renamed `torch_dtype` to `dtype`; the releases before it (torch
    # 2.4.1's 4.44) refuse the new name.
    dtype = {"dtype" if _version_tuple(transformers.__version__) >= (4, 56) else "torch_dtype": torch.float32}
    if auto != SUBMODEL:
        # The auto class picks the text sub-config when a composite config (qwen3_5,
        # llama4) maps to a text-only head, as from_pretrained would.
        return getattr(transformers, auto).from_config(config, **dtype)
    if hasattr(cls, "_from_config"):
        return cls._from_config(config, **dtype)
    return cls(config)


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def _sub_configs(config, seen=None):
    seen = set() if seen is None else seen
    if id(config) in seen:
        return
    seen.add(id(config))
    yield config
    for value in vars(config).values():
        if hasattr(value, "to_dict") and hasattr(value, "model_type"):
            yield from _sub_configs(value, seen)


def _fix_rope_sections(model_cls, config) -> None:
    """Qwen-style multimodal rope splits the rotary half of head_dim into (time, height,
    width) sections, read from `mrope_section` with a default sized for the full model:
    give every tiny (sub-)config sections that add up to its own rotary size."""
    try:
        source = inspect.getsource(inspect.getmodule(model_cls))
    except (OSError, TypeError):
        return
    if "mrope_section" not in source:
        return
    for cfg in _sub_configs(config):
        rope = getattr(cfg, "rope_parameters", None)
        heads, hidden = getattr(cfg, "num_attention_heads", None), getattr(cfg, "hidden_size", None)
        head_dim = getattr(cfg, "head_dim", None) or (hidden // heads if heads and hidden else None)
        if not isinstance(rope, dict) or not head_dim:
            continue
        factor = rope.get("partial_rotary_factor") or getattr(cfg, "partial_rotary_factor", None) or 1.0
        rope["mrope_section"] = _split_sum(rope.get("mrope_section") or [16, 24, 24], int(head_dim * factor) // 2)


def _definition_config(config) -> dict:
    def clean(d):
        return {k: clean(v) if isinstance(v, dict) else v for k, v in d.items() if k not in _NOISY}

    return clean(config.to_dict())


# Shrinking levels, tried in turn. A model whose widths cannot be shrunk consistently
# (detectors whose backbone channels feed a neck, ...) is built again with its default
# widths, and then also with its default image size, only cut in depth, as long as it
# stays below SHALLOW_MAX_PARAMS.
LEVELS = ("tiny", "shallow", "depth")
SHALLOW_MAX_PARAMS = 150_000_000


def build(model_id: str) -> Case:
    _setup()
    from transformers import CONFIG_MAPPING, AutoConfig

    if model_id not in list(CONFIG_MAPPING.keys()):
        raise BuildError(f"unknown transformers model type '{model_id}'")
    auto, class_name = choose_head(model_id)
    try:
        default = AutoConfig.for_model(model_id)
    except Exception as exc:
        raise BuildError(f"default config of '{model_id}' cannot be created: {type(exc).__name__}: {exc}") from exc
    errors = []
    for level in LEVELS:
        try:
            return _build(model_id, auto, class_name, default, level)
        except BuildError as exc:
            errors.append(exc)
            if "parameters at default widths" in str(exc):
                break  # the deeper levels are as large
    later = "; ".join(f"{lvl}: {e}" for lvl, e in zip(LEVELS[1:], errors[1:]))
    raise BuildError(f"{errors[0]}" + (f" [with default widths: {later}]" if later else "")) from errors[0]


def _build(model_id: str, auto: str, class_name: str | None, default, level: str) -> Case:
    import torch

    from .inputs import hf_case_inputs

    config = tiny_config(default, level)
    cls = _model_class(config, class_name)
    _fix_rope_sections(cls, config)
    if auto == "AutoModelForCTC" and getattr(config, "vocab_size", 0) is None:
        config.vocab_size = 32  # CTC heads need an output vocabulary the default leaves unset
    try:
        if level == "shallow":
            with torch.device("meta"):
                n = sum(p.numel() for p in _instantiate(cls, auto, config).parameters())
            if n > SHALLOW_MAX_PARAMS:
                raise BuildError(f"{n / 1e6:.0f}M parameters at default widths")
        torch.manual_seed(0)
        model = _instantiate(cls, auto, config).eval()
    except BuildError:
        raise
    except Exception as exc:
        raise BuildError(f"{cls.__name__} cannot be built from the {level} config: {type(exc).__name__}: {exc}") from exc
    inputs = hf_case_inputs(model, config)
    return Case(
        model=model, args=(), kwargs=inputs.kwargs, dynamic_shapes=inputs.dynamic_shapes,
        alt_args=() if inputs.alt_kwargs is not None else None, alt_kwargs=inputs.alt_kwargs,
        definition={
            "source": SOURCE, "model_type": model_id, "auto_class": auto, "class": type(model).__name__,
            "shrink": level, "config": _definition_config(config), "inputs": describe(inputs.kwargs),
            "alt_inputs": describe(inputs.alt_kwargs), "dynamic_shapes": describe_dynamic(inputs.dynamic_shapes),
            "input_kind": inputs.kind,
        },
    )


# --- Shrinking a default config -------------------------------------------------------
# Every width of every sub-config is set to the same constant, so the many "this size
# must equal that one" relations between sub-configs (a vision tower's hidden size as
# the text model's cross-attention input, ...) hold without knowing each model. Heads
# times head_dim equals the hidden size. The config is shrunk as a dict and rebuilt
# through its class, which validates it and recomputes derived attributes.
HIDDEN, HEADS, HEAD_DIM, FFN, LAYERS, VOCAB = 32, 4, 8, 64, 2, 128
EXPERTS, TOP_K, LORA_RANK = 4, 2, 16
# Special token ids below this stay as they are (pad/bos/eos are usually 0..2); larger
# ones are moved to the top of the tiny vocabulary, the same id to the same new id.
_KEEP_IDS_BELOW = 64

_HIDDEN_KEYS = {"hidden_size", "d_model", "n_embd", "n_embed", "embed_dim", "dim", "emb_dim",
                "d_embed", "model_dim", "word_embed_proj_dim", "embedding_size", "projection_dim",
                "embedding_dim", "text_embed_dim", "vision_embed_dim"}
_HIDDEN_SUFFIXES = ("_hidden_size", "projection_size", "_projection_dim")
_FFN_KEYS = {"intermediate_size", "ffn_dim", "n_inner", "d_ff", "mlp_dim", "intermediate_dim", "dim_feedforward",
             "d_inner", "ffn_hidden_size", "encoder_ffn_dim", "decoder_ffn_dim"}
_FFN_SUFFIXES = ("intermediate_size", "_ffn_dim")
_HEAD_KEYS = {"num_attention_heads", "n_head", "n_heads", "num_heads", "attention_heads",
              "encoder_attention_heads", "decoder_attention_heads"}
_HEAD_SUFFIXES = ("_attention_heads", "_num_heads", "_n_heads")
_KV_KEYS = {"num_key_value_heads", "n_kv_heads", "num_kv_heads", "multi_query_group_num", "kv_n_heads"}
_HEAD_DIM_KEYS = {"head_dim", "d_kv", "d_head", "attention_head_dim", "dim_head", "kv_channels", "attention_head_size",
                  "v_head_dim", "qk_nope_head_dim", "qk_rope_head_dim", "linear_key_head_dim",
                  "linear_value_head_dim", "index_head_dim", "rotary_dim"}
_LAYER_COUNT_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_LAYER_KEYS = {*_LAYER_COUNT_KEYS, "encoder_layers", "decoder_layers", "num_encoder_layers", "num_decoder_layers", "depth"}
_LAYER_SUFFIXES = ("_num_hidden_layers", "_num_layers")
_EXPERT_KEYS = {"num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"}
_TOPK_KEYS = {"num_experts_per_tok", "moe_topk", "num_experts_per_token", "moe_k"}
_LORA_KEYS = {"kv_lora_rank", "q_lora_rank"}
# Lists naming each layer's kind; the tiny model keeps one layer of every kind.
_LAYER_TYPE_KEYS = ("layer_types", "layers_block_type", "block_types", "layers_type")
# Lists of the indices of special layers (bamba's attn_layer_indices, ...).
_LAYER_INDEX_SUFFIXES = ("_layer_indices", "_layer_ids", "_layers_idx", "_layer_idx", "attn_idxs")
_OUT_INDEX_KEYS = ("out_indices", "_out_indices", "backbone_out_indices")
# Image-token counts follow the patch grid of the vision tower (scaled by its area).
_TOKEN_COUNT_KEYS = {"mm_tokens_per_image", "image_seq_length", "num_image_tokens", "image_seq_len",
                     "tokens_per_image", "num_image_tokens_per_image"}
# Lists of per-stage widths in hierarchical vision models (swin, hiera, resnet, ...).
_WIDTH_LIST_MARKERS = ("hidden_size", "embed_dim", "dims", "channels", "conv_dim", "widths", "hidden_dim")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_sub(v) -> bool:
    return isinstance(v, dict) and "model_type" in v


def _is_token_key(k: str) -> bool:
    return k.endswith(("token_id", "token_index", "token_ids"))


def _special_ids(d: dict, out: set) -> None:
    for k, v in d.items():
        if _is_sub(v):
            _special_ids(v, out)
        elif _is_token_key(k):
            for x in v if isinstance(v, list) else [v]:
                if _is_int(x) and x >= _KEEP_IDS_BELOW:
                    out.add(x)


def _image_size(size: int, patch) -> int:
    # Patch models get an 8x8 grid (at least 64 pixels): divisible by the 2x2 merges and
    # 4x4 poolings vision-language models apply to the patch grid.
    if _is_int(patch) and 0 < patch <= 32:
        return patch * max(8, -(-64 // patch))
    return min(size, 64)


def _grid(d: dict) -> tuple[int, int] | None:
    """(old, new) patch-grid side of the first vision (sub-)config: scales token counts."""
    size, patch = d.get("image_size"), d.get("patch_size")
    if _is_int(size) and _is_int(patch) and 0 < patch <= size:
        return size // patch, _image_size(size, patch) // patch
    for v in d.values():
        if _is_sub(v) and (grid := _grid(v)) is not None:
            return grid
    return None


def _split_sum(parts: list[int], total: int) -> list[int]:
    """Scale `parts` to integers summing to `total` (largest remainder), each at least 1
    when there is room."""
    raw = [p * total / sum(parts) for p in parts]
    out = [max(1 if total >= len(parts) else 0, int(r)) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - int(raw[i]), reverse=True):
        if sum(out) >= total:
            break
        out[i] += 1
    return out


def _token_count(v: int, grid) -> int:
    old, new = grid
    side = round(v ** 0.5)
    if side * side == v:  # a square of tokens pooled from the grid: keep the pooling exact
        t = max(1, round(side * new / old))
        while new % t:
            t -= 1
        return t * t
    scaled = v * new * new / (old * old)
    return int(scaled) if scaled >= 1 and scaled == int(scaled) else v


class _Plan:
    """How one (sub-)config dict shrinks: which layers stay, and the width factor."""

    def __init__(self, d: dict):
        self.n_old = next((d[k] for k in _LAYER_COUNT_KEYS if _is_int(d.get(k))), None)
        self.keep = None  # indices of the layers kept, when layers have kinds
        n_new = min(self.n_old, LAYERS) if self.n_old else None
        types = next((d[k] for k in _LAYER_TYPE_KEYS if isinstance(d.get(k), list) and d[k]), None)
        if self.n_old and types and all(isinstance(t, str) for t in types):
            firsts = sorted({t: i for i, t in reversed(list(enumerate(types)))}.values())
            if len(types) == self.n_old and self.n_old > LAYERS:
                self.keep = firsts if len(firsts) >= LAYERS else list(range(LAYERS))
                n_new = len(self.keep)
            elif len(types) < self.n_old:  # a repeating pattern: keep one full period's kinds
                n_new = min(self.n_old, max(n_new, firsts[-1] + 1))
        outs = next((d[k] for k in _OUT_INDEX_KEYS if isinstance(d.get(k), list)), None)
        if self.n_old and n_new and outs and self.keep is None:
            n_new = min(self.n_old, max(n_new, len(outs)))  # a backbone feeding k features needs k layers
        self.n_new = n_new
        # Width lists that contain the hidden size (hiera's embed_dim_per_stage starts at
        # hidden_size) shrink by the hidden size's own factor; other lists stay as they are.
        self.hidden = next((d[k] for k in ("hidden_size", "embed_dim", "d_model") if _is_int(d.get(k))), None)
        related = [x for k, v in d.items() if _is_width_list(k, v) and self.hidden in v for x in v]
        self.factor = None
        if self.hidden and related:
            f = 1
            while self.hidden // (2 * f) >= HIDDEN // 2 and all(x % (2 * f) == 0 for x in [*related, self.hidden]):
                f *= 2
            self.factor = f

    def layer_list(self, v: list) -> list:
        if self.keep is not None and len(v) == self.n_old:
            return [v[i] for i in self.keep]
        if self.n_old and self.n_new and self.n_new < self.n_old and len(v) == self.n_old and self.n_old >= 3:
            return v[:self.n_new]
        return v


def _is_width_list(k: str, v) -> bool:
    return (isinstance(v, list) and bool(v) and all(_is_int(x) and x > 0 for x in v)
            and any(m in k for m in _WIDTH_LIST_MARKERS))


def _shrink(d: dict, ids: dict, grid, level: str) -> dict:
    plan = _Plan(d)
    out = {}
    for k, v in d.items():
        if _is_sub(v):
            out[k] = _shrink(v, ids, grid, level)
        elif level != "tiny" and not _depth_key(k, v, plan, level):
            out[k] = v
        elif k in ("out_features", "_out_features"):
            continue  # derived again from out_indices
        elif k in _OUT_INDEX_KEYS and isinstance(v, list) and plan.n_new:
            last = [x for x in v if _is_int(x) and x >= 0]
            if last and plan.n_new < plan.n_old:  # the last k layers feed the k outputs
                v = list(range(plan.n_new - len(last) + 1, plan.n_new + 1))
            out["out_indices" if k == "_out_indices" else k] = v
        elif _is_token_key(k):
            out[k] = [ids.get(x, x) for x in v] if isinstance(v, list) else ids.get(v, v)
        elif k == "use_pretrained_backbone":
            out[k] = False  # would download weights
        elif k in _TOKEN_COUNT_KEYS and _is_int(v) and grid:
            out[k] = _token_count(v, grid)
        elif k == "image_embedding_size" and _is_int(v) and grid and v == grid[0]:
            out[k] = grid[1]  # SAM's prompt encoder: the side of the image embedding grid
        elif k == "per_layer_config" and isinstance(v, dict) and plan.n_new:
            kept = plan.keep or list(range(plan.n_new))
            out[k] = {type(i)(kept.index(int(i))): c for i, c in v.items() if int(i) in kept}
        elif isinstance(v, dict) and isinstance(v.get("mrope_section"), list):
            # multimodal rope splits head_dim / 2 into (time, height, width) sections
            out[k] = {**v, "mrope_section": _split_sum(v["mrope_section"], HEAD_DIM // 2)}
        elif k.endswith(_LAYER_INDEX_SUFFIXES) and isinstance(v, list) and v and plan.n_new \
                and plan.n_new < (plan.n_old or 0) and all(_is_int(x) for x in v):
            out[k] = [plan.n_new - 1]  # layers of a special kind: the last tiny layer is one
        elif _is_int(v):
            out[k] = _shrink_int(k, v, d, plan)
        elif isinstance(v, list):
            out[k] = _shrink_list(k, plan.layer_list(v), d, plan)
        else:
            out[k] = v
    _fill_unset(out)
    if "qk_head_dim" in d and "qk_nope_head_dim" in d:
        out["qk_head_dim"] = out["qk_nope_head_dim"] + out.get("qk_rope_head_dim", 0)
    _fix_ssm_heads(out)
    if isinstance(d.get("axial_pos_embds_dim"), list):  # reformer: the factors sum to hidden_size
        out["axial_pos_embds_dim"] = _split_sum(d["axial_pos_embds_dim"], out.get("hidden_size", HIDDEN))
    return out


def _fill_unset(out: dict) -> None:
    """Sizes some default configs leave unset although their model needs them (the
    released checkpoints all set them): head_dim and the key/value head count."""
    heads = out.get("num_attention_heads")
    if "head_dim" in out and out["head_dim"] is None and _is_int(heads) and _is_int(out.get("hidden_size")):
        out["head_dim"] = out["hidden_size"] // heads
    if "num_key_value_heads" in out and out["num_key_value_heads"] is None and _is_int(heads):
        out["num_key_value_heads"] = heads
    # Hybrids that place attention (or experts) every `period` layers from `offset`:
    # make layer 1 of the two an attention (and expert) layer.
    for kind in ("attn", "expert"):
        if _is_int(out.get(f"{kind}_layer_period")) and _is_int(out.get(f"{kind}_layer_offset")):
            out[f"{kind}_layer_period"], out[f"{kind}_layer_offset"] = LAYERS, LAYERS - 1
    if _is_int(out.get("n_groups")):
        out["n_groups"] = 1  # SSM groups must divide the (now 4) heads


# Mamba-2 style state-space layers: heads * head_dim must equal expand * hidden_size.
_SSM_KEYS = (("mamba_n_heads", "mamba_d_head", "mamba_expand"), ("num_heads", "head_dim", "expand"),
             ("mamba_num_heads", "mamba_head_dim", "mamba_expand"))


def _fix_ssm_heads(out: dict) -> None:
    hidden = out.get("hidden_size")
    for heads, head_dim, expand in _SSM_KEYS:
        if all(_is_int(out.get(k)) for k in (heads, head_dim, expand)) and _is_int(hidden):
            inner = out[expand] * hidden
            if inner % out[heads] == 0:
                out[head_dim] = inner // out[heads]


def _shrink_list(k: str, v: list, d: dict, plan: _Plan) -> list:
    if not v or not all(_is_int(x) for x in v):
        return v
    if k == "depths":
        return [1] * len(v)
    if (k in _HEAD_KEYS or k.endswith(_HEAD_SUFFIXES)) and all(x > 0 for x in v):
        return [max(1, x // v[0]) for x in v]  # swin [3, 6, 12, 24] -> [1, 2, 4, 8]
    if plan.factor and _is_width_list(k, v) and plan.hidden in v:
        return [x // plan.factor for x in v]
    if k == "image_size" and len(v) == 2:
        return [_image_size(x, d.get("patch_size")) for x in v]
    return v


def _shrink_int(k: str, v: int, d: dict, plan: _Plan) -> int:
    if v <= 0:
        return v
    if k in _HIDDEN_KEYS or k.endswith(_HIDDEN_SUFFIXES):
        if plan.factor and v == plan.hidden:
            return v // plan.factor
        return min(v, HIDDEN)
    if k in _FFN_KEYS or k.endswith(_FFN_SUFFIXES):
        return min(v, FFN)
    if k in _KV_KEYS or k.endswith("key_value_heads"):  # MHA stays MHA; GQA and MQA keep fewer kv heads
        heads = next((d[h] for h in _HEAD_KEYS if _is_int(d.get(h))), v)
        return min(HEADS, v) if v >= heads else max(1, min(v, HEADS // 2))
    if k in _HEAD_KEYS or k.endswith(_HEAD_SUFFIXES):
        return min(v, HEADS)
    if k in _HEAD_DIM_KEYS:
        return min(v, HEAD_DIM)
    if k in _LAYER_COUNT_KEYS and plan.n_new is not None:
        return plan.n_new
    if k in _LAYER_KEYS or k.endswith(_LAYER_SUFFIXES):
        return min(v, LAYERS)
    if k in _EXPERT_KEYS:
        return min(v, EXPERTS)
    if k in _TOPK_KEYS:
        return min(v, TOP_K)
    if k in _LORA_KEYS:
        return min(v, LORA_RANK)
    if k in ("n_group", "topk_group"):
        return 1
    if k == "vocab_size":
        return min(v, VOCAB)
    if k == "image_size":
        return _image_size(v, d.get("patch_size"))
    if k == "window_size" and _is_int(d.get("image_size")) and d["image_size"] > 0:
        # windowed vision attention (swin): the last stage must still hold one window
        return max(1, round(v * _image_size(d["image_size"], d.get("patch_size")) / d["image_size"]))
    if k == "max_source_positions":
        return min(v, 32)
    return v


def _depth_key(k: str, v, plan: _Plan, level: str) -> bool:
    """What the `shallow` and `depth` levels shrink: depth, the layer lists and indices
    that follow it, the vocabulary (with the special ids that must stay inside it), and
    at the `shallow` level the image size."""
    if level == "shallow" and (k in ("image_size", "window_size", "image_embedding_size") or k in _TOKEN_COUNT_KEYS):
        return True
    return (k in _LAYER_KEYS or k.endswith(_LAYER_SUFFIXES) or k == "depths" or k == "vocab_size" or _is_token_key(k)
            or k in _OUT_INDEX_KEYS or k.endswith(_LAYER_INDEX_SUFFIXES) or k == "per_layer_config"
            or k == "use_pretrained_backbone" or k in ("out_features", "_out_features")
            or (isinstance(v, list) and plan.layer_list(v) is not v))


def tiny_config(config, level: str = "tiny"):
    """A copy of `config` with tiny sizes, rebuilt through its class (so it is validated).

    Levels other than `tiny` keep the default widths (see LEVELS)."""
    d = config.to_dict()
    special: set = set()
    _special_ids(d, special)
    ids = {old: VOCAB - 1 - i for i, old in enumerate(sorted(special))}
    if len(ids) > VOCAB - _KEEP_IDS_BELOW:
        raise BuildError(f"{len(ids)} special token ids do not fit the tiny vocabulary of {VOCAB}")
    small = _shrink(d, ids, _grid(d), level)
    try:
        return type(config).from_dict(small)
    except Exception as exc:
        raise BuildError(f"the tiny {type(config).__name__} is rejected: {type(exc).__name__}: {exc}") from exc
