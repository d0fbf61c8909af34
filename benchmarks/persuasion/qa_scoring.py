"""PersuasiveToM's QA rows: Table 5's accuracy and Table 6's consistency per policy and question type.

:func:`qa_rows` loads the QA env as :class:`QAOptions` say (data, split, question types, protocol),
has each policy answer every dialogue (:mod:`benchmarks.persuasion.qa_answers`) and scores the answers
into one row per question type, with the status of the type's file (``release_file``: the release's,
``verified``; a sample's; one that ``differs`` from the release's under ``--allow-partial``, its row then
``partial``; or a type we could not inspect, ``unverified``), the loaded data's quirks,
the accuracy by dialogue stage (001's Figure 3) and, for the llm, its prompts and counters.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from benchmarks.persuasion.live import PersuasionBenchmarkError
from benchmarks.persuasion.qa_answers import (
    QA_ENV,
    QA_POLICIES,
    answer_dialogues,
    check_qa_policies,
    llm_answers,
    stored_answers,
)
from benchmarks.persuasion.qa_prompts import PROTOCOLS
from benchmarks.qa_llm import LLM_POLICY, LLMRun, make_qa_env
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import ANSWER_LETTERS as AUTHORS_LETTERS
from tom_envs.persuasion.data import RELEASE_QUIRKS, release_status
from tom_envs.persuasion.metrics import accuracy_table, consistency_table, stage_table
from tom_envs.persuasion.prompts import QAPrompts


@dataclass(frozen=True)
class QAOptions:
    """How :func:`qa_rows` puts the questions and keeps the answers (``--data-dir``, ``--qtypes``,
    ``--split``, ``--protocol``, ``--authors-prompts``, ``--out``).

    Attributes:
        data_dir: the folder with the published files (None: the bundled sample).
        qtypes: the question types to ask (None: all present).
        split: ``"all"``, ``"dev"`` or ``"test"``.
        protocol: ``"ours"`` (options reshuffled every pass) or ``"authors"`` (the published order;
            the LLM run must have been built for it).
        prompts: the llm's authors' prompts, named in the rows' ``prompt_file`` (:func:`with_prompts`
            put their texts into the LLM run).
        out: the results folder; with it the scripted policies' answered dialogues are recorded under
            ``out / "persuasion"`` too (:func:`stored_answers`, resumable); without it they are only computed.
        progress: a bar over the dialogues (None: on a terminal).
        allow_partial: without ``qtypes``, use the files present although a verified file of the
            release is missing, and use files under the release's names that are not the release's (their
            rows and the run's records are then marked ``partial``, with a note on stderr) (``--allow-partial``).

    Raises:
        PersuasionBenchmarkError: an unknown ``protocol``.
    """

    data_dir: str | None = None
    qtypes: Sequence[str] | None = None
    split: str = "all"
    protocol: str = "ours"
    prompts: QAPrompts | None = None
    out: str | Path | None = None
    progress: bool | None = False
    allow_partial: bool = False

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise PersuasionBenchmarkError(f"unknown protocol {self.protocol!r}; choose from {', '.join(PROTOCOLS)}")


def qa_rows(
    policies: Sequence[str], repetitions: int, seed: int, options: QAOptions = QAOptions(), llm: LLMRun | None = None
) -> list[dict[str, Any]]:
    """Table 5 rows (plus Table 6 consistency on the persuadee rows) per policy, the questions put as
    ``options`` say (:class:`QAOptions`).

    ``llm`` runs the ``"llm"`` policy (see :class:`LLMRun`); its rows also carry the answerer's
    counters and its answers are recorded under ``llm.out / "persuasion"`` (resumable).
    """
    check_qa_policies(policies)
    protocol, prompts, out = options.protocol, options.prompts, options.out
    if LLM_POLICY in policies and llm is None:
        raise PersuasionBenchmarkError("policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)")
    if llm is not None and llm.config.get("protocol", "ours") != protocol:
        raise PersuasionBenchmarkError(
            f"the LLM run was built for protocol {llm.config.get('protocol', 'ours')!r}, "
            f"the questions are put under {protocol!r}; build both from the same --protocol"
        )
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    env = make_qa_env(
        QA_ENV,
        data_dir=options.data_dir,
        qtypes=options.qtypes,
        split=options.split,
        shuffle_choices=protocol == "ours",
        allow_partial=options.allow_partial,
        option_slots=len(AUTHORS_LETTERS) if protocol == "authors" else None,
    )
    differences: dict[str, str] = getattr(env.unwrapped, "release_differences", {})
    if differences:
        print(
            "note: --allow-partial: these files are not the release's, so their rows and every record of this "
            "run are marked partial:\n  " + "\n  ".join(differences.values()),
            file=sys.stderr,
        )
    sample = bool(getattr(env.unwrapped, "is_sample", False))
    repeated = getattr(env, "repeated_options", {})
    loaded = {it.qtype for ep in env.episodes for it in ep}
    absent = [q for q in QTYPES if q not in loaded]  # Table 5 columns this data cannot fill
    rows = []
    for name in policies:
        counters: dict[str, dict[str, Any]] = {}
        if name == LLM_POLICY and llm is not None:  # (llm is not None: checked above)
            reps, counters = llm_answers(env, llm, repetitions, seed)
        elif out is not None:
            reps = stored_answers(env, name, repetitions, seed, Path(out), protocol, options.progress)
        else:
            reps = answer_dialogues(env, QA_POLICIES[name](), repetitions, seed, options.progress)
        consistency = {r["qtype"]: r for r in consistency_table(reps)}
        stages: dict[str, list[dict[str, Any]]] = {}
        for r in stage_table(reps):
            stages.setdefault(r["qtype"], []).append({k: v for k, v in r.items() if k != "qtype"})
        for row in accuracy_table(reps):
            q = row["qtype"]
            extra = consistency.get(q)
            if extra is not None:
                row.update(
                    consistency=extra["consistency"],
                    consistency_ci=extra["consistency_ci"],
                    consistency_sd=extra["consistency_sd"],
                )
            rows.append(
                {
                    "env": "qa",
                    "policy": name,
                    "protocol": protocol,
                    **row,
                    "columns_not_in_data": absent,
                    "expected_accuracy": row["chance"] if name == "random" else None,
                    "release_file": release_status(q, q in differences, sample),
                    "partial": q in differences,
                    "release_quirk": RELEASE_QUIRKS.get(q),
                    "repeated_options": repeated.get(q, 0),
                    "stages": stages.get(q, []),
                    **_prompt_columns(name, llm, prompts),
                    **counters.get(q, {}),
                }
            )
    return rows


def _prompt_columns(policy: str, llm: LLMRun | None, prompts: QAPrompts | None) -> dict[str, Any]:
    """``prompt_source`` / ``prompt_file`` of a row: None for the policies that read no prompt."""
    if policy != LLM_POLICY or llm is None:
        return {"prompt_source": None, "prompt_file": None}
    source = llm.config.get("prompt_source", "ours")
    return {"prompt_source": source, "prompt_file": prompts.path if prompts is not None and source != "ours" else None}
