"""``tom-envs rl --env ID``: stable-baselines3 agents trained on any family's env, evaluated on a
held-out split with the ToM recorder, next to the family's scripted references (docs/rl.md).

A family says how it is trained through :class:`RLTask` declarations named in its
:class:`tom_envs.family.Family` (``rl=("benchmarks.<family>.rl:TASK", ...)``); this module holds
the shared part (the command, training, literal ToM for RL agents, rows) and names no family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Row = dict[str, Any]


@dataclass(frozen=True)
class RLTask:
    """How RL agents train and are tested on some of a family's ids.

    Attributes:
        env_ids: the registered ids this task trains on (``tom-envs rl --env ID`` finds the task
            whose ``env_ids`` hold ID).
        make_env: ``make_env(env_id, split)`` -> a single-agent Gymnasium env of the trained seat
            (an AEC id's other seats are played inside it by the family's scripted/default
            policies), drawing its partners / personas / cases / questions from ``split`` only.
            Its unwrapped env keeps the ToM contract (``tom_spec``, ``tom_truth()``,
            ``tom_outcome()``), so :class:`wrappers.ToMRecorder` scores it; its observations may
            be any space (the shared code turns dict and text observations into vectors).
        splits: split name -> what it holds (shown in ``--help`` and docs); has ``"train"`` and
            ``"test"``; rows name the split they were evaluated on.
        outcome: the key of ``tom_outcome()`` (the episode's functional outcome) rows report.
        higher_is_better: whether a larger ``outcome`` is better (False for regret).
        steps: the default training budget per training seed (``--steps``); with the default
            seeds a run finishes within 10 minutes on a 2-core machine.
        horizon: the episode length used for training and testing where the env takes one, else None.
        hyper: algorithm name -> extra stable-baselines3 keyword arguments for this task.
        seat: the trained seat's agent name for AEC ids (named in rows), None for Gymnasium ids.
        references: ``references(env_id, split, seeds)`` -> rows of the family's scripted
            references played on the same split and seeds (same keys as the RL rows), or None.
        notes: one line per thing a reader of the rows should know (shown under the table).
        episodes: the default number of evaluation episodes per training seed (``--episodes``).
        reset_options: ``reset_options(env_id, split, i)`` -> the reset options of the ``i``-th
            evaluation episode (e.g. ``{"episode": i}`` to play each dialogue of a split once), or
            None: episodes differ by their seed only.
        make_vec_env: ``make_vec_env(env_id, split, n_envs)`` -> a Gymnasium ``VectorEnv`` with
            same-step autoreset that trains faster than ``n_envs`` single envs (the matrix games'
            native vector env), or None where none applies; None: SB3's ``DummyVecEnv`` over
            ``make_env``.
        data_dir: ``make_env`` takes a ``data_dir=`` keyword (the dataset folder, ``--data-dir``).
        observation: keyword arguments of :class:`wrappers.VectorizeObservation` for this task's
            envs (e.g. ``{"skip": ("text",), "buckets": 256}``).
        n_envs: the default number of parallel training envs (``--n-envs``).
    """

    env_ids: tuple[str, ...]
    make_env: Callable[[str, str], Any]
    outcome: str
    splits: Mapping[str, str] = field(default_factory=lambda: {"train": "training split", "test": "held-out split"})
    higher_is_better: bool = True
    steps: int = 50_000
    horizon: int | None = None
    hyper: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    seat: str | None = None
    references: Callable[[str, str, Sequence[int]], list[Row]] | None = None
    notes: tuple[str, ...] = ()
    episodes: int = 30
    reset_options: Callable[[str, str, int], Mapping[str, Any] | None] | None = None
    make_vec_env: Callable[[str, str, int], Any] | None = None
    data_dir: bool = False
    observation: Mapping[str, Any] = field(default_factory=dict)
    n_envs: int = 8
