"""What the QA families' RL tasks share: one protocol, declared once (:func:`qa_rl_task`).

An RL agent on a QA id (a dialogue stepped turn by turn, questions answered on the way) trains with a
reward per question (``feedback='step'`` on the train split) and is tested with the env's default
``feedback='episode'``, one episode per dialogue of the split (``episodes=1`` per reset option, played
in turn); its outcome is ``accuracy``; its observations are a hashed bag of words with the prompt text
and the turn counter left out. A family's task names what differs: its id, env factory, splits, budget,
hash buckets, references and notes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmarks.rl import RLTask

#: The note every QA task's rows carry first (how it was trained and tested).
FEEDBACK_NOTE = ("trained with per-question rewards (feedback='step' on the train split); tested with the default "
                 "feedback='episode' (the agent's policy reads observations only)")


def qa_rl_task(env_id: str, make_env: Callable[..., Any], splits: Mapping[str, str], steps: int, buckets: int,
               split_size: Callable[..., int], reset_options: Callable[..., Any], references: Callable[..., Any],
               notes: Sequence[str]) -> RLTask:
    """The :class:`benchmarks.rl.RLTask` of a QA id under the shared protocol (module docstring); ``notes``
    follow :data:`FEEDBACK_NOTE`."""
    return RLTask(env_ids=(env_id,), make_env=make_env, outcome="accuracy", higher_is_better=True, splits=splits,
                  steps=steps, episodes=1, split_size=split_size, reset_options=reset_options, data_dir=True,
                  observation={"skip": ("text", "turn"), "buckets": buckets}, references=references,
                  notes=(FEEDBACK_NOTE, *notes))


__all__ = ["FEEDBACK_NOTE", "qa_rl_task"]
