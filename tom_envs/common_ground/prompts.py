"""The release's zero-shot prompt file (``data/prompts/gpt-zero-shot``): a plain-text template with the
fields ``{context}`` and ``{question}``, read and stripped as the release's own loader reads it."""

from __future__ import annotations

import string
from pathlib import Path

from tom_envs.errors import DatasetError

#: The release's zero-shot prompt file, under ``<data>/prompts/``.
RELEASE_PROMPT_FILE = "gpt-zero-shot"
PROMPT_FIELDS = frozenset({"context", "question"})


class PromptFileError(DatasetError):
    """The release-format prompt file is missing or does not have the ``{context}`` / ``{question}`` fields."""


def release_prompt_path(data_dir: str | Path) -> Path:
    """Where a data folder laid out like the release's ``data/`` keeps the zero-shot prompt."""
    return Path(data_dir) / "prompts" / RELEASE_PROMPT_FILE


def load_release_prompt(path: str | Path) -> str:
    """The prompt template of ``path``, stripped as the release's loader strips it.

    Raises:
        PromptFileError: the file is missing, unreadable, or its fields are not exactly
            ``{context}`` and ``{question}``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise PromptFileError(
            f"{path}: no prompt file; the release keeps it in data/prompts/{RELEASE_PROMPT_FILE} "
            "(fetch it with python -m benchmarks data download common-ground, or "
            "write one with the fields {context} and {question})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(f"{path}: cannot read the prompt file ({exc})") from None
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as exc:
        raise PromptFileError(f"{path}: not a format template ({exc}); write literal braces as {{{{ and }}}}") from None
    if fields != PROMPT_FIELDS:
        raise PromptFileError(
            f"{path}: a prompt template needs exactly the fields {{context}} and {{question}}, "
            f"found {sorted(fields) or 'none'}"
        )
    return text


__all__ = ["PROMPT_FIELDS", "RELEASE_PROMPT_FILE", "PromptFileError", "load_release_prompt", "release_prompt_path"]
