"""Common-ToM (003) as lm-evaluation-harness tasks (``tom-envs export lm-eval DIR --family common-ground``;
:mod:`benchmarks.harnesses.lm_eval_export`).

The protocol is ``--policy llm-release``'s, 003's zero-shot one: the release's prompt file filled
with the question's context (the ±5-sentence window, ``--context window``) and its text
(:func:`policies.common_ground.llm.release_prompt`, the function the suite sends with), one user
message, sampled at the release's temperature; a reply counts when, with its periods removed and
stripped, it is exactly ``Yes`` or ``No`` (:func:`policies.common_ground.llm.parse_release_reply`),
and anything else is wrong. One document per scored (released) question of the split: the
``tom/CommonToM-v2`` env also asks filler questions, which the suite sends but never scores, so
they are not exported. One task per order (``tom_common_tom_order_1`` .. ``_3``), their group
``tom_common_tom`` (accuracy pooled over the orders: the suite's "all" row), and
``tom_common_tom_all`` (every order in one task: accuracy, the release's F1 and precision/recall
per answer, and the suite's consistency, which do not pool over tasks). Metrics are fractions
(the suite prints percent).
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmarks.harnesses.lm_eval_family import ExportSettings, FamilyExport, Metric, Source, TaskData

PREFIX = "tom_common_tom"
CONTEXT = "window"  # 003's rows (and the suite's default --context)
#: The suite's per-answer columns (tom_envs.common_ground.metrics.f1_columns), pooled by the suite's function.
F1_METRICS = ("f1_macro", "f1_yes", "f1_no", "precision_yes", "precision_no", "recall_yes", "recall_no")
MEAN_METRICS = (Metric("acc"), Metric("unparsed", higher_is_better=False))
ALL_METRICS = (*MEAN_METRICS, *(Metric(m, "suite") for m in F1_METRICS), Metric("consistency", "suite"))

#: A question's identity as the suite's records keep it, each field with its type (None: kept as it is):
#: conversation, sentence and event numbers, belief order, chain and certainty.
IDENTITY: dict[str, Callable[[Any], Any] | None] = {
    "cid": int,
    "sno": int,
    "eno": float,
    "order": int,
    "chain": None,
    "belief_Q": None,
}


def question_identity(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`IDENTITY` fields of ``fields`` (a question's metadata, or a document read back), typed."""
    return {k: fields[k] if kind is None else kind(fields[k]) for k, kind in IDENTITY.items()}


class CommonToMExport(ExportSettings):
    """:class:`benchmarks.harnesses.lm_eval_family.LMEvalFamily` of Common-ToM."""

    def export(self, source: Source) -> FamilyExport:
        """The split's scored questions as documents, in the order the suite asks them."""
        from benchmarks.common_ground.benchmark import ENV
        from benchmarks.common_ground.llm import prompt_file
        from benchmarks.qa_llm import make_qa_env, qa_env_id
        from policies.common_ground.llm import RELEASE_MAX_TOKENS, RELEASE_TEMPERATURE, load_release_prompt

        if source.authors_prompts is not None or source.system_in_user:
            from benchmarks.harnesses.lm_eval_family import LMEvalExportError

            raise LMEvalExportError(
                "--authors-prompts and --system-in-user apply to a protocol with a system "
                "message read from a release script; Common-ToM's is one user message from "
                "the data folder's prompts/gpt-zero-shot"
            )
        split = source.split or self.default_split
        env = make_qa_env(ENV, data_dir=source.data_dir, split=split, context=CONTEXT)
        path = prompt_file(argparse.Namespace(prompt_file=None, data_dir=source.data_dir))
        template = load_release_prompt(path)
        docs = documents(env, template)
        orders = sorted({d["order"] for d in docs})
        tasks = [
            TaskData(f"order_{o}", [d for d in docs if d["order"] == o], MEAN_METRICS, alias=f"order {o}")
            for o in orders
        ]
        tasks.append(TaskData("all", docs, ALL_METRICS, in_group=False, alias="all orders"))
        generation: dict[str, Any] = {"until": [], "do_sample": True, "temperature": float(RELEASE_TEMPERATURE)}
        if RELEASE_MAX_TOKENS is not None:
            generation["max_gen_toks"] = int(RELEASE_MAX_TOKENS)
        info = {
            "env_id": qa_env_id(ENV),
            "data_dir": _resolved(source.data_dir),
            "split": split,
            "context": CONTEXT,
            "protocol": "llm-release (003's zero-shot protocol)",
            "prompt_source": "file",
            "prompt_file": str(path.resolve()),
            "prompt_sha256": hashlib.sha256(template.encode("utf-8")).hexdigest()[:16],
            "layout": "one user message",
            "reading": "periods removed, stripped, exactly Yes or No",
            "counts": {t.suffix: len(t.docs) for t in tasks},
        }
        return FamilyExport(tasks, generation, group_metrics=("acc", "unparsed"), info=info)

    def scorer(self, scoring: Mapping[str, Any]) -> "CommonToMScorer":
        return CommonToMScorer()


def _resolved(data_dir: str | None) -> str | None:
    from benchmarks.qa_llm import data_key

    return data_key(data_dir)


def documents(env: Any, template: str) -> list[dict[str, Any]]:
    """Every scored question of ``env``'s conversations as a document: conversation ``i`` played with
    seed ``i`` (the suite's default ``--seed 0``), so the documents come in the suite's asking order;
    the prompt is the one the suite sends for the observation (:func:`release_prompt`)."""
    from policies.common_ground.llm import release_prompt

    base = env.unwrapped
    docs = []
    for i, cid in enumerate(base.cids):
        obs, _ = base.reset(seed=i, options={"cid": cid})
        while True:
            item = base.current_item  # the exporter's view (ground truth): which questions are scored, their answers
            if item.scored:
                docs.append(
                    {
                        "id": f"{cid}:{item.meta['sno']}:{item.meta['eno']}:{item.role}:{item.meta['belief_Q']}",
                        **question_identity({**item.meta, "cid": cid, "chain": item.role}),
                        "qtype": item.qtype,
                        "context": obs["context"],
                        "question": obs["question"],
                        "prompt": release_prompt(template, obs["context"], obs["question"]),
                        "answer": item.choices[item.answer],
                    }
                )
            obs, _, terminated, truncated, _ = base.step(0)
            if terminated or truncated:
                break
    return docs


class CommonToMScorer:
    """Scores a reply as ``--policy llm-release`` does, and pools the suite's metrics."""

    def score(self, doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
        """``acc`` and ``unparsed`` (1.0 / 0.0) and, for the suite's pooled metrics, the question's record
        as the suite keeps it (its identity, ``gold`` answer 1 yes / 0 no, ``correct``, ``unparsed``)."""
        from policies.common_ground.llm import RELEASE_ANSWERS, parse_release_reply

        label = parse_release_reply(reply)
        correct = label is not None and label == doc["answer"]
        record = {
            **question_identity(doc),
            "gold": RELEASE_ANSWERS.index(doc["answer"]),
            "correct": correct,
            "unparsed": label is None,
        }
        return {
            "acc": float(correct),
            "unparsed": float(label is None),
            **{m.name: record for m in ALL_METRICS if m.aggregation == "suite"},
        }

    def aggregate(self, metric: str, items: Sequence[Any]) -> float:
        """A pooled metric over the records, as the suite's rows have it (a fraction; NaN where the
        suite has None)."""
        from tom_envs.common_ground.metrics import consistency, f1_columns

        value = consistency(items) if metric == "consistency" else f1_columns(items)[metric]
        return float("nan") if value is None else value / 100.0


LM_EVAL = CommonToMExport(family="common_ground", prefix=PREFIX, splits=("test", "train", "all"), default_split="test")

__all__ = ["LM_EVAL", "CommonToMExport", "CommonToMScorer", "documents", "question_identity"]
