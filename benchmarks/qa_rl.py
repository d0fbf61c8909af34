"""What the QA families' RL tasks share: one protocol, declared once (:func:`qa_rl_task`).

An RL agent on a QA id (a dialogue stepped turn by turn, questions answered on the way) trains with a
reward per question (``feedback='step'`` on the train split) and is tested with the env's default
``feedback='episode'``, one episode per dialogue of the split (``episodes=1`` per reset option, played
in turn); its outcome is ``accuracy``; its observations are a hashed bag of words with the prompt text
and the turn counter left out. A family's task names what differs: its id, which dialogues a split holds
(the env's ``split`` argument, given to :func:`split_env`), splits, budget, hash buckets, references and notes.
Evaluation episode ``index`` plays dialogue ``index`` of the split (:func:`episode_options`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from benchmarks.rl import RLTask

#: Per-question rewards on the train split (the envs' documented option for training with per-question
#: feedback); the test split keeps the default, answers back when the episode ends.
FEEDBACK = {"train": "step", "test": "episode"}

#: The note every QA task's rows carry first (how it was trained and tested).
FEEDBACK_NOTE = (
    "trained with per-question rewards (feedback='step' on the train split); tested with the default "
    "feedback='episode' (the agent's policy reads observations only)"
)


@lru_cache(maxsize=8)
def split_prototype(env_id: str, split: str, dialogues: Any, data_dir: str | None) -> Any:
    """The env ``env_id`` on ``dialogues`` (its ``split`` argument: a split's name, or a tuple of dialogue keys)
    with ``split``'s :data:`FEEDBACK`, read from ``data_dir``; made once per process (a release takes seconds
    to read)."""
    import gymnasium as gym

    chosen = list(dialogues) if isinstance(dialogues, tuple) else dialogues
    return gym.make(env_id, data_dir=data_dir, split=chosen, feedback=FEEDBACK[split])


def split_env(env_id: str, split: str, dialogues: Any, data_dir: str | None) -> Any:
    """A copy of :func:`split_prototype`'s env, for one caller to step."""
    return copy.deepcopy(split_prototype(env_id, split, dialogues, data_dir))


def episode_options(env_id: str, split: str, index: int) -> dict[str, int]:
    """Evaluation episode ``index`` plays dialogue ``index`` of the split."""
    return {"episode": index}


def qa_rl_task(env_id: str, buckets: int, notes: Sequence[str], **fields: Any) -> RLTask:
    """The :class:`benchmarks.rl.RLTask` of the QA id ``env_id`` under the shared protocol (module docstring):
    observations hashed into ``buckets``; ``notes`` follow :data:`FEEDBACK_NOTE`; ``fields`` are the task's own
    (``make_env``, ``splits``, ``steps``, ``split_size``, ``references``)."""
    return RLTask(
        env_ids=(env_id,),
        outcome="accuracy",
        higher_is_better=True,
        episodes=1,
        data_dir=True,
        observation={"skip": ("text", "turn"), "buckets": buckets},
        notes=(FEEDBACK_NOTE, *notes),
        reset_options=episode_options,
        **fields,
    )


__all__ = ["FEEDBACK", "FEEDBACK_NOTE", "episode_options", "qa_rl_task", "split_env", "split_prototype"]
