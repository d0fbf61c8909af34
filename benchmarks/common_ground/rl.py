"""Common-ToM's RL task (``tom-envs rl --env tom/CommonToM-v2``; docs/rl.md): agents answer the
belief questions from hashed-text features of the observation, trained on the release's training
conversations and tested on its test conversation (003's split: the env's ``split`` argument).

The answer is the prediction (``action_is_prediction``), so no probe is needed: the agent's ToM %
is its accuracy on the scored questions. References: the question-only floor (each certainty's
majority answer on the training split) and 003's random row (yes at the training split's
yes-rate), on the same split.
"""

from __future__ import annotations

from typing import Any, Sequence

from benchmarks.qa_rl import qa_rl_task, split_env, split_prototype
from benchmarks.rl import Row
from benchmarks.rl_eval import reference_rows

ENV_ID = "tom/CommonToM-v2"


def make_env(env_id: str, split: str, data_dir: str | None = None) -> Any:
    """The env on ``split`` (``train``: conversations 4245, 4248, 4310; ``test``: 4431), read from
    ``data_dir`` (default: the bundled sample). The release takes seconds to read, so each split is
    read once per process and copied."""
    return split_env(env_id, split, split, data_dir)


def split_size(env_id: str, split: str, data_dir: str | None = None) -> int:
    """The number of conversations of ``split``."""
    return len(split_prototype(env_id, split, split, data_dir).unwrapped.episodes)


def _train_rows(data_dir: str | None) -> list:
    from tom_envs.common_ground.env import load_split

    return [r for rows in load_split(data_dir, "train").values() for r in rows]


def references(env_id: str, split: str, seeds: Sequence[int], data_dir: str | None = None) -> list[Row]:
    """The question-only floor and the prior-random row, fitted on the training split."""
    from policies.common_ground.scripted import PriorRandomPolicy, QuestionOnlyPolicy

    rows = _train_rows(data_dir)
    return reference_rows(
        TASK,
        env_id,
        split,
        seeds,
        {
            "question-only": (lambda: QuestionOnlyPolicy.from_questions(rows), "the answer (question-only floor)"),
            "random": (lambda: PriorRandomPolicy.from_questions(rows), "the answer (random at the train yes-rate)"),
        },
        "common_ground",
        {"data_dir": data_dir},
    )


TASK = qa_rl_task(
    ENV_ID,
    make_env=make_env,
    splits={
        "train": "the release's training conversations (4245, 4248, 4310)",
        "test": "the release's test conversation (4431)",
    },
    steps=30_000,
    buckets=256,
    split_size=split_size,
    references=references,
    notes=(
        "accuracy = % of the scored questions answered right, mean over the split's conversations",
        "observations: hashed bag of words of the dialogue so far, the question and the options, plus the "
        "question's order, chain and certainty one-hot (wrappers.VectorizeObservation; the prompt text, which repeats "
        "them, and the sentence number, whose range differs between the splits, left out)",
        "without --data-dir the bundled sample (two short conversations) is used",
    ),
)
