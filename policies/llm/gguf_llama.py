"""The Llama part of :mod:`policies.llm.models`: a llama GGUF file read into a plain Hugging Face folder.

:func:`write_folder` dequantizes every tensor with the ``gguf`` package (``gguf.quants.dequantize``: Q4_1, Q8_0
and F32 blocks to float32, exactly), maps the tensor names to the transformers Llama names and undoes the
llama.cpp Q/K row permutation, as transformers' own GGUF loader does; the config comes from the file's metadata
(:func:`read_config`) and the tokenizer with its chat template from transformers reading the file. Other
architectures go through :mod:`policies.llm.gguf_transformers`; :func:`policies.llm.models.convert_gguf` picks
one and writes the folder's identity.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from policies.llm.errors import ModelFileCorrupt

#: GGUF tensor names (after ``blk.N.``) -> transformers Llama names (after ``model.layers.N.``).
_LAYER_NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}


def _unpermute(weights: Any, heads: int) -> Any:
    """Undo llama.cpp's Q/K row permutation (its converter interleaves the two rotary halves of each head)."""
    half = weights.shape[0] // heads // 2
    return weights.reshape(heads, half, 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def read_field(reader: Any, key: str, default: Any = None) -> Any:
    field = reader.fields.get(key)
    if field is None:
        if default is None:
            raise ModelFileCorrupt(f"the GGUF file has no {key!r} entry; it is not a llama model this converter knows")
        return default
    return field.contents()


def read_config(reader: Any) -> dict[str, Any]:
    """A transformers ``LlamaConfig`` as a dict, from the GGUF file's metadata."""
    arch = read_field(reader, "general.architecture")
    if arch != "llama":
        raise ModelFileCorrupt(
            f"the GGUF file's architecture is {arch!r}; this converter knows 'llama' (and, through "
            "transformers, those of policies.llm.gguf_transformers.TRANSFORMERS_ARCHITECTURES)"
        )
    heads = int(read_field(reader, "llama.attention.head_count"))
    hidden = int(read_field(reader, "llama.embedding_length"))
    names = {t.name for t in reader.tensors}
    eos = int(read_field(reader, "tokenizer.ggml.eos_token_id"))
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": len(read_field(reader, "tokenizer.ggml.tokens")),
        "hidden_size": hidden,
        "intermediate_size": int(read_field(reader, "llama.feed_forward_length")),
        "num_hidden_layers": int(read_field(reader, "llama.block_count")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(read_field(reader, "llama.attention.head_count_kv", heads)),
        "head_dim": int(read_field(reader, "llama.rope.dimension_count", hidden // heads)),
        "max_position_embeddings": int(read_field(reader, "llama.context_length")),
        "rms_norm_eps": float(f"{float(read_field(reader, 'llama.attention.layer_norm_rms_epsilon')):.6g}"),
        "rope_theta": float(read_field(reader, "llama.rope.freq_base", 10000.0)),
        "hidden_act": "silu",
        "tie_word_embeddings": "output.weight" not in names,
        "bos_token_id": int(read_field(reader, "tokenizer.ggml.bos_token_id")),
        "eos_token_id": eos,
        "pad_token_id": int(read_field(reader, "tokenizer.ggml.padding_token_id", eos)),
        "attention_bias": False,
        "mlp_bias": False,
        "torch_dtype": "float32",
    }


def read_tensors(reader: Any, config: dict[str, Any]) -> dict[str, Any]:
    """Every tensor of the GGUF file dequantized to float32 numpy, under its transformers name."""
    import numpy as np
    from gguf.quants import dequantize

    out: dict[str, Any] = {}
    for tensor in reader.tensors:
        stem, _, suffix = tensor.name.rpartition(".")
        parts = stem.split(".")
        if parts[0] == "blk" and len(parts) == 3 and parts[2] in _LAYER_NAMES:
            kind = parts[2]
            name = f"model.layers.{int(parts[1])}.{_LAYER_NAMES[kind]}.{suffix}"
        elif stem in _TOP_NAMES:
            kind, name = stem, f"{_TOP_NAMES[stem]}.{suffix}"
        elif stem == "rope_freqs":
            continue  # recomputed by the engines from rope_theta
        else:
            raise ModelFileCorrupt(f"the GGUF file has a tensor {tensor.name!r} this converter does not know")
        weights = np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        if kind == "attn_q":
            weights = _unpermute(weights, config["num_attention_heads"])
        elif kind == "attn_k":
            weights = _unpermute(weights, config["num_key_value_heads"])
        out[name] = np.ascontiguousarray(weights)
    return out


def write_folder(reader: Any, source: Path, out: Path) -> None:
    """Write the weights (``model.safetensors``, float32), ``config.json``, ``generation_config.json`` and the
    tokenizer of the llama GGUF file ``source`` (open in ``reader``) into ``out``."""
    from safetensors.numpy import save_file

    config = read_config(reader)
    tensors = read_tensors(reader, config)
    save_file(dict(sorted(tensors.items())), str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    generation = {key: config[key] for key in ("bos_token_id", "eos_token_id", "pad_token_id")}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2, sort_keys=True) + "\n")
    _save_tokenizer(source, out)


def _save_tokenizer(source: Path, out: Path) -> None:
    """The tokenizer and chat template as transformers reads them from the GGUF file, saved as plain files."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    tokenizer.save_pretrained(str(out))


__all__ = ["read_config", "read_field", "read_tensors", "write_folder"]
