"""How ``tom-envs persuasion`` puts the QA questions to an LLM: the two protocols and the prompt texts.

``--protocol ours`` reshuffles the options every pass and sends our prompt; ``--protocol authors`` keeps
the published order and sends the release's message layout and answer rule (:class:`AuthorsProtocol`),
with the prompt texts read from the release's evaluation script (:func:`authors_prompts`) when at hand.
:func:`llm_run` builds the ``llm`` policy's run for a protocol, :func:`with_prompts` gives it the texts,
and :func:`request_row` says on a row what the authors' protocol sent. The notes the table prints about
them are :data:`PROTOCOL_NOTES` and :data:`PROMPT_NOTES`.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from benchmarks.errors import RunnerError
from benchmarks.persuasion.live import PersuasionBenchmarkError
from benchmarks.qa_llm import LLMRun
from policies.persuasion.qa_protocol import AUTHORS_REQUEST, AuthorsProtocol, authors_system_in_user
from tom_envs.persuasion.prompts import OUR_PROMPTS, QAPrompts, find_release_prompts, read_authors_prompts

#: How the questions are put: ``ours`` (options reshuffled every pass, our prompt and parser) or
#: ``authors`` (the published option order, the release's message layout and answer rule; the prompt
#: texts read from the release's evaluation script when at hand, else ours: ``prompt_source``).
PROTOCOLS = ("ours", "authors")
PROTOCOL_NOTES = {
    "ours": "options in a new seeded order every pass; llm: our prompt and reply parser",
    "authors": "options in the published order; llm: the release's message layout, answer rule and re-sampling at "
    "T=0.7 (prompt texts: see the llm's prompts line)",
}
#: What the table says about the llm's prompt texts (``prompt_source``).
PROMPT_NOTES = {
    "release": "read from the release's evaluation/evaluate.py ({path}): the authors' prompts, comparable with 001's "
    "Table 5",
    "file": "read from {path}, a script in the release's layout whose prompts are not the release's: not comparable "
    "with 001's Table 5",
    "ours": "our prompts (no release evaluation/evaluate.py next to --data-dir and no --authors-prompts; fetch it "
    "with tom-envs data download persuasion): not the authors' wording, not comparable word for word with "
    "001's Table 5",
}


def authors_prompts(protocol: str, data_dir: str | None, path: str | None = None) -> QAPrompts:
    """The prompt texts of ``--protocol authors``: read from ``path``, else from the release's
    script next to ``data_dir`` (:func:`~tom_envs.persuasion.prompts.find_release_prompts`), else
    ours. ``protocol == "ours"`` takes no ``path`` (its prompts are ours).

    Raises:
        PersuasionBenchmarkError: a ``path`` with ``protocol == "ours"``.
        PromptFileError: the file given or found is not readable as the release's script.
    """
    if protocol != "authors":
        if path is not None:
            raise PersuasionBenchmarkError(
                "--authors-prompts applies to --protocol authors (our protocol uses our "
                "prompt); add --protocol authors or drop --authors-prompts"
            )
        return OUR_PROMPTS
    found = path if path is not None else find_release_prompts(data_dir)
    return OUR_PROMPTS if found is None else read_authors_prompts(found)


def llm_run(args: argparse.Namespace, prompts: QAPrompts) -> LLMRun:
    """The ``llm`` policy's run under ``--protocol``: the generic run of the LLM options
    (:meth:`LLMRun.from_args`) with the protocol in its identity (``protocol``, ``system_in_user``)
    and, under ``authors``, the protocol itself and its prompt texts (:func:`with_prompts`).

    Raises:
        RunnerError: bad LLM options, or ``--scoring`` with ``--protocol authors``.
    """
    llm = LLMRun.from_args(args)
    authors = args.protocol == "authors"
    if authors and args.scoring:
        raise RunnerError(
            "--protocol authors generates replies as the release does (sampled at T=0.7); "
            "drop --scoring, or use --protocol ours"
        )
    config = {
        **llm.config,
        "protocol": args.protocol,
        "system_in_user": authors and authors_system_in_user(str(args.model)),
    }
    if authors:
        config["scoring"] = False  # the release generates every reply
    return with_prompts(dataclasses.replace(llm, config=config), prompts)


def with_prompts(llm: LLMRun, prompts: QAPrompts) -> LLMRun:
    """``llm`` sending ``prompts`` under the authors' protocol (:class:`AuthorsProtocol`); the texts'
    source and digest join the run's identity (so answers under different prompts never share a
    results file)."""
    if llm.config.get("protocol") != "authors":
        return llm
    config = {
        **llm.config,
        "prompt_source": prompts.source,
        "prompt_digest": prompts.digest()[:16],
        "authors_prompts": {**prompts.texts(), "source": prompts.source},
    }
    return dataclasses.replace(
        llm, config=config, protocol=AuthorsProtocol(prompts, bool(config.get("system_in_user", False)))
    )


def request_row(llm: LLMRun) -> dict[str, Any]:
    """Under ``--protocol authors``: the request parameters sent (``request``), those the command line set
    (``set_by_user``) and those sent beyond the release's requests (``beyond_authors``: any value the
    user changed). No seed is sent, as in the release's requests (an in-process engine, to which nothing
    is sent, still samples with per-question seeds so that a run repeats)."""
    if llm.config.get("protocol") != "authors":
        return {}
    user = llm.config.get("max_tokens")
    request = {"temperature": AUTHORS_REQUEST["temperature"], "max_tokens": user or AUTHORS_REQUEST["max_tokens"]}
    return {
        "request": request,
        "set_by_user": ["max_tokens"] if user is not None else [],
        "beyond_authors": [k for k, v in request.items() if AUTHORS_REQUEST.get(k) != v],
    }
