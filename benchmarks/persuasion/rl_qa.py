"""PersuasiveToM's RL task (``tom-envs rl --env tom/PersuasiveToM-v1``; docs/rl.md): agents answer
the desire, belief, intention and strategy questions from hashed-text features of the observation
(the dialogue so far, the question, each option shown), trained on one set of dialogues and tested
on the others.

The split is by dialogue, fixed and seed-free: a dialogue is in the **test** split when the CRC-32
of its key (``dialogue_key``, e.g. ``"17"``) is 0 modulo 5 (95 of the release's 525 dialogues,
1,543 of its 8,582 questions in the files present here), in **train** otherwise; where that leaves
a split empty (the bundled three-dialogue sample) the last dialogue is the test split.

The answer is the prediction (``action_is_prediction``), so no probe is needed. References on the
same split: random (a uniformly random shown option, 001's Random Guess) and the floors the data
allows, ``always-first`` and ``longest-or-keyword`` (:mod:`policies.persuasion.qa_baselines`).
"""

from __future__ import annotations

import zlib
from functools import lru_cache
from typing import Any, Sequence

import gymnasium as gym

from benchmarks.qa_rl import qa_rl_task, split_env
from benchmarks.rl import Row
from benchmarks.rl_eval import reference_rows

ENV_ID = "tom/PersuasiveToM-v1"
TEST_MODULUS = 5


def _key_in_test(key: str) -> bool:
    return zlib.crc32(str(key).encode("utf-8")) % TEST_MODULUS == 0


@lru_cache(maxsize=4)
def split_keys(env_id: str, data_dir: str | None) -> dict[str, tuple[str, ...]]:
    """``{"train": keys, "test": keys}``: the dialogue keys of each split (module docstring)."""
    keys = [ep[0].episode_id for ep in gym.make(env_id, data_dir=data_dir).unwrapped.episodes]
    test = [k for k in keys if _key_in_test(k)]
    if not test or len(test) == len(keys):
        test = keys[-1:]
    return {"train": tuple(k for k in keys if k not in test), "test": tuple(test)}


def make_env(env_id: str, split: str, data_dir: str | None = None) -> Any:
    """The env over the split's dialogues, read from ``data_dir`` (default: the bundled sample)."""
    return split_env(env_id, split, split_keys(env_id, data_dir)[split], data_dir)


def split_size(env_id: str, split: str, data_dir: str | None = None) -> int:
    """The number of dialogues of ``split``."""
    return len(split_keys(env_id, data_dir)[split])


def references(env_id: str, split: str, seeds: Sequence[int], data_dir: str | None = None) -> list[Row]:
    """Random, always-first and longest-or-keyword on the same split."""
    from policies.persuasion.qa_baselines import AlwaysFirst, LongestOrKeyword
    from policies.persuasion.scripted import RandomAnswerer

    return reference_rows(
        QA,
        env_id,
        split,
        seeds,
        {
            "random": (RandomAnswerer, "the answer (uniformly random option)"),
            "always-first": (AlwaysFirst, "the answer (first option shown)"),
            "longest-or-keyword": (LongestOrKeyword, "the answer (longest option; yes/no by the word 'not')"),
        },
        "persuasion",
        {"data_dir": data_dir},
    )


QA = qa_rl_task(
    ENV_ID,
    make_env=make_env,
    splits={
        "train": "dialogues whose key's CRC-32 is not 0 mod 5 (430 of the release's 525)",
        "test": "dialogues whose key's CRC-32 is 0 mod 5 (95 of 525)",
    },
    steps=20_000,
    buckets=128,
    split_size=split_size,
    references=references,
    notes=(
        "accuracy = % of the questions answered right, mean over the split's dialogues (options shuffled per "
        "episode seed, as the env does by default)",
        "observations: hashed bag of words of the dialogue so far, the background, the question and each shown "
        "option, plus the question type, role and option count one-hot (wrappers.VectorizeObservation)",
        "without --data-dir the bundled sample (three dialogues; the last is the test split) is used",
    ),
)
