"""What the QA families' RL tasks share: one protocol, declared once (:func:`qa_rl_task`).

An RL agent on a QA id (a dialogue stepped turn by turn, questions answered on the way) trains with a
reward per question (``feedback='step'`` on the train split) and is tested with the env's default
``feedback='episode'``, one episode per dialogue of the split (``episodes=1`` per reset option, played
in turn); its outcome is ``accuracy``; its observations are a hashed bag of words with the prompt text
and the turn counter left out. A family's task names what differs: its id, env factory, splits, budget,
hash buckets, references and notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchmarks.rl import RLTask

#: The note every QA task's rows carry first (how it was trained and tested).
FEEDBACK_NOTE = (
    "trained with per-question rewards (feedback='step' on the train split); tested with the default "
    "feedback='episode' (the agent's policy reads observations only)"
)


def qa_rl_task(env_id: str, buckets: int, notes: Sequence[str], **fields: Any) -> RLTask:
    """The :class:`benchmarks.rl.RLTask` of the QA id ``env_id`` under the shared protocol (module docstring):
    observations hashed into ``buckets``; ``notes`` follow :data:`FEEDBACK_NOTE`; ``fields`` are the task's own
    (``make_env``, ``splits``, ``steps``, ``split_size``, ``reset_options``, ``references``)."""
    return RLTask(
        env_ids=(env_id,),
        outcome="accuracy",
        higher_is_better=True,
        episodes=1,
        data_dir=True,
        observation={"skip": ("text", "turn"), "buckets": buckets},
        notes=(FEEDBACK_NOTE, *notes),
        **fields,
    )


__all__ = ["FEEDBACK_NOTE", "qa_rl_task"]
