"""PersuasiveToM (001) as lm-evaluation-harness tasks (``tom-envs export lm-eval DIR --family persuasion``;
:mod:`benchmarks.harnesses.lm_eval_export`).

The protocol is ``tom-envs persuasion --protocol authors --policy llm``'s: the options in the
published order, the release's message layout (a system message, then the user message with the
dialogue, question, lettered options and answer cue), built for each question by the suite's own
:class:`policies.persuasion.qa_protocol.AuthorsProtocol` from the env's observation, with the
prompt texts the suite would use (read from the release's ``evaluation/evaluate.py`` next to
``--data-dir`` or from ``--authors-prompts``, else ours: ``prompt_source`` in the manifest). The
system message is the task's ``description``: run with ``--apply_chat_template`` to send the two
messages (``--system-in-user`` puts it into the user message, the release's layout for ``o1``/``gemma``
models and for completion models). Replies are read by the same protocol object (the release's rule,
then the lenient forms); lm-eval asks once, so a reply neither rule reads is wrong and counted in
``unparsed`` where the suite would sample again. One task per question type present
(``tom_persuasive_tom_<type>``; ``_cot_`` with ``--qa-mode cot``) with accuracy and, for the
persuadee's types, Table 6's whole-dialogue consistency (the suite's function); the group
``tom_persuasive_tom`` lists them (the suite pools no accuracy over types). Metrics are fractions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.harnesses.lm_eval_family import ExportSettings, FamilyExport, Metric, Source, TaskData

PREFIX = "tom_persuasive_tom"
MEAN_METRICS = (Metric("acc"), Metric("unparsed", higher_is_better=False))


class PersuasiveToMExport(ExportSettings):
    """:class:`benchmarks.harnesses.lm_eval_family.LMEvalFamily` of PersuasiveToM's questions."""

    def export(self, source: Source) -> FamilyExport:
        """Every question of the split as a document, in the suite's order (dialogue by dialogue)."""
        from benchmarks.persuasion.qa_answers import QA_ENV
        from benchmarks.persuasion.qa_prompts import authors_prompts
        from benchmarks.qa_llm import data_key, make_qa_env, qa_env_id
        from policies.persuasion.qa_protocol import AUTHORS_MAX_TOKENS, AUTHORS_TEMPERATURE, AuthorsProtocol
        from tom_envs.persuasion import QTYPES
        from tom_envs.persuasion.data import ANSWER_LETTERS
        from tom_envs.persuasion.metrics import CONSISTENCY_QTYPES

        split = source.split or self.default_split
        env = make_qa_env(
            QA_ENV,
            data_dir=source.data_dir,
            qtypes=None,
            split=split,
            shuffle_choices=False,
            option_slots=len(ANSWER_LETTERS),
        )
        prompts = authors_prompts("authors", source.data_dir, source.authors_prompts)
        protocol = AuthorsProtocol(prompts, source.system_in_user)
        docs = documents(env, protocol, source.qa_mode)
        tasks = []
        for qtype in QTYPES:
            mine = [d for d in docs if d["qtype"] == qtype]
            metrics = (*MEAN_METRICS, Metric("consistency", "suite")) if qtype in CONSISTENCY_QTYPES else MEAN_METRICS
            suffix = qtype if source.qa_mode == "zero_shot" else f"cot_{qtype}"
            tasks.append(TaskData(suffix, mine, metrics, alias=qtype))
        generation = {
            "until": [],
            "do_sample": True,
            "temperature": float(AUTHORS_TEMPERATURE),
            "max_gen_toks": int(AUTHORS_MAX_TOKENS),
        }
        scoring = {
            "prompts": {**prompts.texts(), "source": prompts.source},
            "qa_mode": source.qa_mode,
            "system_in_user": bool(source.system_in_user),
        }
        info = {
            "env_id": qa_env_id(QA_ENV),
            "data_dir": data_key(source.data_dir),
            "split": split,
            "protocol": "authors (001's evaluation/evaluate.py layout; published option order)",
            "qa_mode": source.qa_mode,
            "prompt_source": prompts.source,
            "prompt_file": prompts.path if prompts.source != "ours" else None,
            "prompt_digest": prompts.digest()[:16],
            "layout": "one user message (system text first)"
            if source.system_in_user
            else "system message (the task's description; --apply_chat_template) + user message",
            "reading": "the release's rule, then the lenient forms; one reply, unread = wrong",
            "counts": {t.suffix: len(t.docs) for t in tasks if t.docs},
        }
        return FamilyExport(tasks, generation, scoring=scoring, info=info)

    def scorer(self, scoring: Mapping[str, Any]) -> "PersuasiveToMScorer":
        return PersuasiveToMScorer(scoring)


def observations(env: Any) -> list[tuple[dict, Any, int]]:
    """Every question of ``env`` as (the observation the suite's answerer gets, its item, the shown
    index of its right option), dialogue ``i`` played with seed ``i`` (the order is published: the
    seed changes nothing shown)."""
    base = env.unwrapped
    out = []
    for i in range(len(base.episodes)):
        obs, _ = base.reset(seed=i, options={"episode": i})
        while True:
            out.append((obs, base.current_item, base.current_answer))  # the exporter's view: ground truth
            obs, _, terminated, truncated, _ = base.step(0)
            if terminated or truncated:
                break
    return out


def documents(env: Any, protocol: Any, mode: str) -> list[dict[str, Any]]:
    """One document per question: the messages the suite's authors' protocol sends for it (``system``
    and ``prompt``, or ``prompt`` alone in the one-message layout), the observation's fields the reply
    is read against, and the gold answer (its letter, and its index)."""
    from tom_envs.persuasion.data import ANSWER_LETTERS

    docs = []
    for obs, item, answer in observations(env):
        messages = protocol.ask(obs, mode, None).messages
        n = int(obs["n_choices"])
        doc = {
            "id": f"{item.meta['source']}:{item.meta['record']}",
            "qtype": item.qtype,
            "dialogue": str(item.episode_id),
            "dialogue_id": item.meta["dialogue_id"],
            "turn": int(item.turn),
            "role": item.role,
            "context": obs["context"],
            "question": obs["question"],
            "choices": [str(c) for c in obs["choices"][:n]],
            "option_slots": len(obs["choices"]),
        }
        if messages[0]["role"] == "system":
            doc["system"] = messages[0]["content"]
        doc.update(prompt=messages[-1]["content"], answer=ANSWER_LETTERS[answer], answer_index=answer)
        docs.append(doc)
    return docs


class PersuasiveToMScorer:
    """Reads a reply with the suite's authors' protocol and scores it as the suite does."""

    def __init__(self, scoring: Mapping[str, Any]) -> None:
        from policies.persuasion.qa_protocol import AuthorsProtocol

        self.mode = str(scoring.get("qa_mode", "zero_shot"))
        self.protocol = AuthorsProtocol(dict(scoring["prompts"]), bool(scoring.get("system_in_user", False)))

    def read(self, doc: Mapping[str, Any], reply: str) -> int | None:
        """The option index the protocol reads from ``reply`` (possibly beyond the options: answered
        and wrong, as the release scores it), or None when neither its rule nor the lenient forms read one."""
        from policies.llm.errors import ReplyError

        choices = list(doc["choices"])
        obs = {
            "context": doc["context"],
            "question": doc["question"],
            "n_choices": len(choices),
            "choices": tuple(choices + [""] * (int(doc["option_slots"]) - len(choices))),
        }
        try:
            index, _rule = self.protocol.ask(obs, self.mode, None).parse(reply)
        except ReplyError:
            return None
        return int(index)

    def score(self, doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
        """``acc`` and ``unparsed`` (1.0 / 0.0), and for Table 6 the answer as the suite keeps it."""
        index = self.read(doc, reply)
        correct = index is not None and index == int(doc["answer_index"])
        answer = {
            "qtype": doc["qtype"],
            "dialogue": doc["dialogue"],
            "correct": correct,
            "n_choices": len(doc["choices"]),
            "turn": int(doc["turn"]),
        }
        return {"acc": float(correct), "unparsed": float(index is None), "consistency": answer}

    def aggregate(self, metric: str, items: Sequence[Any]) -> float:
        """Table 6's whole-dialogue consistency (:func:`tom_envs.persuasion.metrics.consistency_table`, one
        repetition) as a fraction."""
        from tom_envs.persuasion.metrics import Answer, consistency_table

        if metric != "consistency":
            raise KeyError(f"no pooled metric {metric!r} (PersuasiveToM pools consistency)")
        answers = [
            Answer(a["qtype"], a["dialogue"], bool(a["correct"]), int(a["n_choices"]), int(a["turn"])) for a in items
        ]
        rows = consistency_table([answers], qtypes=tuple(dict.fromkeys(a.qtype for a in answers)))
        return float("nan") if not rows else rows[0]["consistency"] / 100.0


LM_EVAL = PersuasiveToMExport(
    family="persuasion", prefix=PREFIX, splits=("all", "dev", "test"), default_split="all", modes=("zero_shot", "cot")
)

__all__ = ["LM_EVAL", "PersuasiveToMExport", "PersuasiveToMScorer", "documents", "observations"]
