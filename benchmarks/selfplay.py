"""``tom-envs selfplay``: learners that model learners (docs/selfplay.md).

Two independent stable-baselines3 learners (PPO or sb3-contrib's RecurrentPPO), one per seat of a
two-seat id, train in rounds, and at every checkpoint each one's literal ToM about the other is measured
beside its floor: "do learners come to predict each other, and does that prediction pay?".

A family says which of its two-seat ids self-play, how one seat is played against a given policy and
which frozen population its learners may face through :class:`SelfplayTask` declarations named in its
:class:`tom_envs.family.Family` (``selfplay=("module:TASK", ...)``); this module holds the shared part
(the declaration, the run's configuration, the rows and the command) and names no family.

* ``--mode selfplay``: in round ``r`` both learners train at once (simultaneous rounds), each for
  ``--steps`` env steps against the other's frozen snapshot of round ``r - 1`` (round 0: the other's
  untrained network).
* ``--mode population``: each learner trains every round against the task's frozen population (one
  member drawn per episode).
* **Checkpoints** (rounds ``0 .. --rounds``): each seat's learner, as it stands after the round, plays
  ``--episodes`` evaluation episodes against its opponent of that checkpoint (self-play: the other
  learner as it stands after the same round; population: the population). Its ToM % is a probe's
  (:mod:`benchmarks.rl_probe`, the same mechanism and settings as ``tom-envs rl``) prediction of the other
  seat's next action, fitted on ``--probe-episodes`` other episodes of the same pairing (seeds from
  1,000,000, never the evaluation seeds), beside the majority-class floor (the same agent on the same
  episodes predicting the probe's training majority: :class:`benchmarks.rl_probe.MajorityProbe`), and its
  return; records go through :mod:`benchmarks.results` (a rerun loads the saved snapshots and records).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from benchmarks.rl_train import RLError

#: The results folder under ``--out``.
FOLDER = "selfplay"
#: Bump when what a self-play record or snapshot means changes (it keys every file).
SELFPLAY_VERSION = 1
MODES = ("selfplay", "population")
ALGOS = ("ppo", "recurrent_ppo")


class SelfplayError(RLError):
    """Bad options or declarations for ``tom-envs selfplay`` (the message says what to change)."""


@dataclass(frozen=True)
class SelfplayTask:
    """How a family's two-seat ids self-play.

    Attributes:
        env_ids: the registered two-seat ids (PettingZoo ``ParallelEnv``) it trains on.
        make_env: ``make_env(env_id, seat, opponent)`` -> a Gymnasium env of ``seat`` whose other seat is
            played by ``opponent`` (a policy of the Policy protocol acting on that seat's own observation);
            its unwrapped env keeps the ToM contract, its target the other seat's action
            (:class:`wrappers.ParallelSeat`).
        seat_space: ``seat_space(env_id, seat)`` -> the observation space ``seat`` is shown (a learner
            playing the other seat flattens it as :class:`wrappers.VectorizeObservation` does).
        population: ``population(env_id, seat)`` -> the frozen agents that may play ``seat``:
            ``[(name, build), ...]``, ``build()`` a fresh policy for that seat.
        seats: the two agent names.
        outcome: the ``tom_outcome()`` key of a seat's return, with ``{seat}`` for the agent name.
        steps: the default training env steps per learner and round (``--steps``).
        rounds: the default number of rounds (``--rounds``).
        episodes: evaluation episodes per checkpoint and seat (``--episodes``).
        probe_episodes: the probe's fitting episodes per checkpoint and seat (``--probe-episodes``).
        n_envs: parallel training envs per learner.
        hyper: algorithm -> extra stable-baselines3 keyword arguments.
        observation: keyword arguments of :class:`wrappers.VectorizeObservation`.
        notes: what a reader of the rows should know.
    """

    env_ids: tuple[str, ...]
    make_env: Callable[..., Any]
    seat_space: Callable[[str, str], Any]
    population: Callable[[str, str], list[tuple[str, Callable[[], Any]]]]
    seats: tuple[str, str] = ("player_0", "player_1")
    outcome: str = "return_{seat}"
    steps: int = 5_000
    rounds: int = 5
    episodes: int = 10
    probe_episodes: int = 10
    n_envs: int = 4
    hyper: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    observation: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def tasks() -> dict[str, SelfplayTask]:
    """Every id some family's :class:`SelfplayTask` trains on -> that task (``Family.selfplay``, in order)."""
    from benchmarks.declarations import by_env_id, declared

    found = declared("selfplay", SelfplayTask, "benchmarks.selfplay.SelfplayTask")
    return {env_id: task for env_id, (_, task) in by_env_id(found).items()}


@dataclass(frozen=True)
class SelfplayRun:
    """One ``tom-envs selfplay`` run: the id, the algorithm, the mode and the budget (None: the task's)."""

    env_id: str
    algo: str = "ppo"
    mode: str = "selfplay"
    rounds: int | None = None
    steps: int | None = None
    seeds: int = 5
    seed: int = 0
    episodes: int | None = None
    probe_episodes: int | None = None

    def resolved(self) -> tuple[SelfplayTask, "SelfplayRun"]:
        """The task and the run with the task's defaults filled in.

        Raises:
            SelfplayError: an id no task trains on (the message lists those that have one), an unknown
                algorithm or mode.
        """
        found = tasks()
        if self.env_id not in found:
            raise SelfplayError(
                f"--env {self.env_id!r}: no family declares self-play on it; choose one of " + ", ".join(found)
            )
        if self.algo not in ALGOS:
            raise SelfplayError(f"--algo {self.algo!r}: self-play trains one of {', '.join(ALGOS)}")
        if self.mode not in MODES:
            raise SelfplayError(f"--mode {self.mode!r}: choose one of {', '.join(MODES)}")
        from tom_envs.errors import import_optional

        import_optional("stable_baselines3", "rl", "tom-envs selfplay")
        task = found[self.env_id]
        return task, replace(
            self,
            rounds=self.rounds if self.rounds is not None else task.rounds,
            steps=self.steps or task.steps,
            episodes=self.episodes or task.episodes,
            probe_episodes=self.probe_episodes or task.probe_episodes,
        )

    def config(self, task: SelfplayTask) -> dict[str, Any]:
        """What decides every snapshot and record of one training seed but the seed (their files' key)."""
        from benchmarks.rl_probe import PROBE_SETTINGS

        return {
            "env_id": self.env_id,
            "algo": self.algo,
            "mode": self.mode,
            "steps": self.steps,
            "episodes": self.episodes,
            "probe_episodes": self.probe_episodes,
            "n_envs": task.n_envs,
            "hyper": dict(task.hyper.get(self.algo, {})),
            "probe": PROBE_SETTINGS,
            "version": SELFPLAY_VERSION,
        }


# ---------------------------------------------------------------------- rows
def curve_rows(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per seat and checkpoint: the mean and 95 % CI over training seeds of the probe's ToM %, the
    majority floor, the gain and the return (each seed's value: the mean over its evaluation episodes)."""
    from tom_envs.stats import mean_ci95

    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["env_id"], rec["algo"], rec["mode"], rec["seat"], rec["round"]), []).append(rec)
    rows = []
    for (env_id, algo, mode, seat, rnd), recs in sorted(
        groups.items(), key=lambda kv: tuple(map(str, kv[0][:4])) + (kv[0][4],)
    ):
        row: dict[str, Any] = {
            "env_id": env_id,
            "algo": algo,
            "mode": mode,
            "seat": seat,
            "round": rnd,
            "steps": recs[0]["steps"],
            "seeds": sorted(r["seed"] for r in recs),
        }
        for name in ("tom_accuracy", "tom_majority", "tom_gain", "return", "return_other"):
            values = [r[name] for r in recs if r.get(name) is not None]
            mean, ci = mean_ci95(values)
            row[name], row[f"{name}_ci"] = mean, ci if len(values) > 1 else None
        rows.append(row)
    return rows


def pays(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Does prediction pay? Over every (seed, seat, checkpoint after round 0): the Spearman rank correlation
    between the probe's gain over its floor and the learner's return (None from fewer than 3 points or
    constant values)."""
    import numpy as np

    points = [
        (r["tom_gain"], r["return"])
        for r in records
        if r["round"] > 0 and r.get("tom_gain") is not None and r.get("return") is not None
    ]
    if len(points) < 3:
        return {"spearman": None, "points": len(points)}
    gain, ret = (_ranks(np.asarray(v, dtype=float)) for v in zip(*points))
    if gain.std() == 0 or ret.std() == 0:
        return {"spearman": None, "points": len(points)}
    return {"spearman": float(np.corrcoef(gain, ret)[0, 1]), "points": len(points)}


def _ranks(values: Any) -> Any:
    """Ranks from 0, ties sharing their mean rank (as Spearman's correlation needs)."""
    import numpy as np

    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = np.arange(len(values), dtype=float)
    for v in np.unique(values):
        tied = values == v
        ranks[tied] = ranks[tied].mean()
    return ranks


def format_rows(rows: Sequence[Mapping[str, Any]], paid: Mapping[str, Any]) -> str:
    """The curve rows as a table (one line per seat and checkpoint)."""

    def fmt(value: Any, ci: Any) -> str:
        if value is None:
            return "n/a"
        return f"{value:.1f} ± {ci:.1f}" if ci is not None else f"{value:.1f}"

    if not rows:
        return "(no checkpoints)"
    head = f"{'seat':<9} {'round':>5} {'steps':>7} {'seeds':>5} {'ToM %':>12} {'majority %':>12} {'return':>14}"
    lines = [f"{rows[0]['env_id']} {rows[0]['algo']} ({rows[0]['mode']})", head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['seat']:<9} {r['round']:>5} {r['steps']:>7} {len(r['seeds']):>5} "
            f"{fmt(r['tom_accuracy'], r['tom_accuracy_ci']):>12} {fmt(r['tom_majority'], r['tom_majority_ci']):>12} "
            f"{fmt(r['return'], r['return_ci']):>14}"
        )
    lines.append(
        "ToM %: a probe on the learner's state predicting the other seat's next action; majority %: the same "
        "learner on the same episodes predicting the probe's training majority; 95 % CIs over training seeds"
    )
    rho = paid.get("spearman")
    lines.append(
        f"does prediction pay? Spearman(ToM gain over the floor, return) over {paid['points']} checkpoints: "
        + ("n/a" if rho is None else f"{rho:+.2f}")
    )
    return "\n".join(lines)
