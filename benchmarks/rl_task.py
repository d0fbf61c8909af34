"""What a family declares for ``tom-envs rl`` (:mod:`benchmarks.rl`; docs/rl.md): :class:`RLTask`, how RL agents
train and are tested on some of its ids, and the lookup of the declared tasks by id (:func:`tasks`, :func:`task_for`).

A family names its tasks in its :class:`tom_envs.family.Family` (``rl=("benchmarks.<family>.rl:TASK", ...)``);
they are imported from :mod:`benchmarks.rl`, where this module's names are re-exported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.rl_train import RLError

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
        seat: the trained seat's agent name on the task's multi-agent ids (named in their rows), None
            for a task of Gymnasium ids only; where ``seats`` is given, the default ``--seat``.
        seats: the seats ``--seat`` may name on the task's multi-agent ids (e.g. both players of a
            two-learner parallel game), or empty: only ``seat`` trains. With seats, ``make_env`` and
            ``references`` take ``seat=`` for those ids (part of every model's, record's and row file's key).
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
        algo_steps: algorithm -> its default ``--steps`` where it differs from ``steps`` (a
            recurrent policy's steps cost more).
        split_size: ``split_size(env_id, split, **make_env's keywords)`` -> the number of distinct
            episodes of ``split`` (dialogues, conversations), which ``reset_options`` plays in turn:
            the default ``--episodes`` then, and its most; None: episodes are drawn by seed.
        unsupported: ids of the family RL does not train on -> a sentence saying why and what to
            run instead (``tom-envs rl --env ID`` fails with it).
        env_kwargs: ``make_env``, ``make_vec_env`` and ``references`` take the env's own keyword
            arguments (``--env-kwargs``, passed on to the env's constructor; e.g. a custom matrix
            game's ``payoffs``).
        task_kwargs: the env's keyword arguments the task sets itself (``--env-kwargs`` may not name them).
        needs_kwargs: id -> the env keyword arguments ``--env-kwargs`` must give for it (e.g. a custom
            game's ``payoffs`` and ``action_labels``).
        seeds: the default number of training seeds (``--seeds``): 5 where the default budget fits.
        algo_seeds: algorithm -> ``(seeds, why)`` where 5 seeds of its default budget do not fit in 10
            minutes on 2 cores (the row says why in ``seeds_note``).
        curve_points: evaluations along training (the learning curve, :mod:`benchmarks.rl_curve`; 0: none).
        curve_episodes: test-split episodes per evaluation (and train-split episodes of its probe).
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
    algo_steps: Mapping[str, int] = field(default_factory=dict)
    unsupported: Mapping[str, str] = field(default_factory=dict)
    split_size: Callable[..., int] | None = None
    seats: tuple[str, ...] = ()
    env_kwargs: bool = False
    task_kwargs: tuple[str, ...] = ()
    needs_kwargs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    seeds: int = 5
    algo_seeds: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    curve_points: int = 10
    curve_episodes: int = 5


# ---------------------------------------------------------------------- the declared tasks
def tasks(broken: dict[str, str] | None = None) -> dict[str, tuple[str, RLTask]]:
    """Every registered id some family's :class:`RLTask` trains on -> ``(family name, task)``
    (``Family.rl``, in the families' order).

    Args:
        broken: if given, a declaration that does not import is noted here (target -> error)
            and left out, so one family's broken module does not stop another's ids; without it
            the error is raised.

    Raises:
        tom_envs.family.FamilyError: a declaration names something that is not an :class:`RLTask`.
    """
    from benchmarks.declarations import by_env_id

    return by_env_id(_declared(broken))


def _declared(broken: dict[str, str] | None) -> list[tuple[str, RLTask]]:
    from benchmarks.declarations import declared

    return declared("rl", RLTask, "benchmarks.rl.RLTask", broken)


def task_for(env_id: str) -> tuple[str, RLTask]:
    """``(family name, task)`` of ``env_id``.

    Raises:
        RLError: no declared task trains on ``env_id`` (the message lists the ids that have one,
            and any declaration that failed to import), or the task declares the id unsupported.
    """
    import tom_envs

    broken: dict[str, str] = {}
    found = tasks(broken)
    if env_id in found:
        return found[env_id]
    for _, task in _declared({}):
        if env_id in task.unsupported:
            raise RLError(f"{env_id}: {task.unsupported[env_id]}")
    known = ", ".join(found) or "none"
    failed = "".join(f"; {t} did not import ({e})" for t, e in broken.items())
    if env_id not in tom_envs.REGISTRY:
        raise RLError(f"--env {env_id!r} is not a registered id; ids RL agents train on: {known}{failed}")
    raise RLError(f"no family declares an RL task for {env_id!r} (Family.rl); ids RL agents train on: {known}{failed}")
