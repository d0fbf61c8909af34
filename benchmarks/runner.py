"""The one evaluation runner: grid cells whose records are resumable, and the episodes they play
(docs/architecture.md, "One spine").

Grids: a :class:`Cell` says how to make its env and policy and what one record holds;
:func:`run_cell` runs the seeds missing from the cell's results file (see
:mod:`benchmarks.results`: locked, stamped, resumable) and returns every seed's record;
:func:`cell_records` yields the records without writing (what a Ray task returns).

Backend faults: :func:`cell_records` moves the retries an LLM episode's requests took out of its
counters into its record (:data:`benchmarks.results.FAULTS_FIELD`; rows: ``results.fault_columns``).

The episodes live beside it and are re-exported here, so ``benchmarks.runner`` names the whole runner:
single-agent episodes (:func:`play`, :func:`play_lockstep`, :func:`lockstep_batches`, :class:`Step`,
:class:`EpisodeResult`: :mod:`benchmarks.runner_episodes`), AEC episodes (:func:`play_aec`,
:func:`play_aec_lockstep`: :mod:`benchmarks.runner_aec`) and the envs from the registry
(:func:`make_env`, :func:`env_id_for`, :func:`recorder_of`: :mod:`benchmarks.runner_envs`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks import policy_seeds
from benchmarks.distributed_scope import current_executor
from benchmarks.results import FAULTS_FIELD, ResultsFile, config_key
from benchmarks.runner_aec import Seats, episode_policy_stats, play_aec, play_aec_lockstep
from benchmarks.runner_envs import env_id_for, make_env, recorder_of
from benchmarks.runner_episodes import EpisodeResult, PolicySeed, Step, StepHook, lockstep_batches, play, play_lockstep

__all__ = [
    "Cell",
    "EpisodeResult",
    "PolicySeed",
    "Step",
    "StepHook",
    "cell_records",
    "env_id_for",
    "lockstep_batches",
    "make_env",
    "play",
    "play_aec",
    "play_aec_lockstep",
    "play_lockstep",
    "progress_bar",
    "recorder_of",
    "run_cell",
]


def progress_bar(total: int, desc: str, enabled: bool | None = None) -> Any:
    """A tqdm bar on stderr, shown only when ``enabled`` (default: stderr is a terminal)."""
    from tqdm import tqdm

    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=total, desc=desc, disable=not show, leave=False, file=sys.stderr)


# ---------------------------------------------------------------------- grid cells
class Cell:
    """What a grid cell must say so that :func:`run_cell` can run it (subclass it as a frozen dataclass).

    Subclasses define :meth:`config` (everything that determines an episode's record except the
    seed: it keys the results file), :meth:`make_env` and :meth:`make_policy`; the others have
    defaults. A ``family`` attribute (a field, or a ``ClassVar``) names the folder of its results
    files under ``--out`` (default ``cells``).
    """

    def config(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def key(self) -> str:
        """The hash of :meth:`config` (:func:`benchmarks.results.config_key`)."""
        return config_key(self.config())

    def slug(self) -> str:
        """The readable part of the results file name."""
        return self.key

    def path(self, out: Path) -> Path:
        """``out / family / "<slug>_<key>.jsonl"``."""
        slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.slug())
        return Path(out) / getattr(self, "family", "cells") / f"{slug}_{self.key}.jsonl"

    def make_env(self) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def make_policy(self) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        """One episode (single-agent envs: :func:`play`; AEC envs: :func:`play_aec`), the policies'
        ``episode_stats()`` kept as :meth:`play_batch` keeps them (an episode's server retries too)."""
        aec = hasattr(env, "agent_iter")
        result = play_aec(env, policy, seed) if aec else play(env, policy, seed)
        stats = [list(p.episode_stats()) if hasattr(p, "episode_stats") else None for p in Seats(policy).distinct]
        result.policy_stats = episode_policy_stats(stats, 0) if aec else (stats[0] or [None])[0]
        return result

    def play_batch(self, envs: Sequence[Any], policy: Any, seeds: Sequence[int]) -> list[EpisodeResult]:
        """Episodes in lockstep (single-agent envs: :func:`play_lockstep` keeping the policy's step
        logs; AEC envs: :func:`play_aec_lockstep`)."""
        if hasattr(envs[0], "agent_iter"):
            return play_aec_lockstep(envs, policy, seeds)
        return play_lockstep(envs, policy, seeds, on_step=lambda step: step.log)

    def record(self, seed: int, result: EpisodeResult) -> dict[str, Any]:
        """The record written for one episode (default: key, cell config, seed, the summary as
        ``episode`` with ``policy_stats`` when there are any, and ``steps`` when kept)."""
        episode = dict(result.summary)
        if result.policy_stats is not None:
            episode["policy_stats"] = result.policy_stats
        rec: dict[str, Any] = {"key": f"{self.key}:{seed}", "cell": self.config(), "seed": seed, "episode": episode}
        if result.steps:
            rec["steps"] = result.steps
        return rec

    def check(self, record: dict) -> None:
        """Raise ``KeyError``/``TypeError``/``ValueError`` if ``record`` has not the shape of this cell's."""
        record["episode"]

    def owns(self, record: dict) -> None:
        """Raise ``ValueError`` if ``record`` says it is another cell's: its ``key`` names another
        cell key, or its ``cell`` configuration hashes to another (a file copied or renamed by hand).
        Records that carry neither are judged by :meth:`check` alone."""
        key = record.get("key")
        if isinstance(key, str) and ":" in key and key.rpartition(":")[0] != self.key:
            raise ValueError(f"a record of cell {key.rpartition(':')[0]}, not of this cell {self.key}")
        if isinstance(record.get("cell"), Mapping) and config_key(record["cell"]) != self.key:
            raise ValueError(
                f"a record of another configuration (cell key {config_key(record['cell'])}, this cell's is {self.key})"
            )

    def verify(self, record: dict) -> None:
        """:meth:`owns` then :meth:`check`: what the results file asks of each stored record."""
        self.owns(record)
        self.check(record)

    def results(self, out: Path) -> ResultsFile:
        """The cell's results file (records by seed), to be opened with ``with``; a stored record that
        is another cell's or of the wrong shape is set aside, never reused (:meth:`verify`)."""
        return ResultsFile(self.path(out), key=lambda rec: int(rec["seed"]), check=self.verify)


def cell_records(
    cell: Cell, seeds: Sequence[int], factory: Callable[[], Any] | None = None, lockstep: int = 1
) -> Iterator[dict]:
    """The records of ``cell`` for ``seeds``, yielded as episodes finish (nothing written).

    ``factory`` builds the policy instead of ``cell.make_policy()``; ``lockstep`` > 1 plays that
    many episodes at once (:meth:`Cell.play_batch`), 1 plays them one by one (:meth:`Cell.play`).
    """
    if not seeds:
        return
    policy = factory() if factory is not None else cell.make_policy()
    size = max(1, int(lockstep))
    envs = [cell.make_env() for _ in range(min(size, len(seeds)))]
    for start in range(0, len(seeds), size):
        batch = list(seeds[start : start + size])
        results = (
            [cell.play(envs[0], policy, batch[0])] if size == 1 else cell.play_batch(envs[: len(batch)], policy, batch)
        )
        for seed, result in zip(batch, results):
            yield _record(cell, seed, result)


def _record(cell: Cell, seed: Any, result: EpisodeResult) -> dict:
    """``cell.record``, the episode's backend faults (the caller's count per request) moved into ``llm_faults``."""
    from policies.llm.caller import split_faults

    result.policy_stats, faults = split_faults(result.policy_stats)
    rec = cell.record(seed, result)
    if isinstance(rec, dict):
        rec.setdefault(policy_seeds.FIELD, str(policy_seeds.run_entropy()))  # replays and resumes the policies
        if faults is not None:
            rec.setdefault(FAULTS_FIELD, faults)
    return rec


def run_cell(
    cell: Cell,
    seeds: Sequence[int],
    out: Path,
    progress: bool | None = False,
    factory: Callable[[], Any] | None = None,
    lockstep: int = 1,
) -> list[dict]:
    """Every seed's record of ``cell``, playing only the seeds its results file lacks.

    The file is locked for the whole run (a concurrent run on the same file fails with
    :class:`~benchmarks.errors.ResultsLocked`); each record (each lockstep batch) is appended the
    moment it is done, so a killed run loses at most the episodes in flight. ``progress``: a bar
    over the episodes to play (None: only when stderr is a terminal). Under an executor
    (:mod:`benchmarks.distributed_scope`) it plays them elsewhere and this process appends them. The policies
    are seeded from the policy entropy the stored records name, else the run's (:mod:`benchmarks.policy_seeds`).
    """
    with cell.results(out) as results, policy_seeds.scope(policy_seeds.of_records(results.records.values())):
        todo = results.missing(seeds)
        executor = current_executor()
        if todo and executor is not None:
            executor.fill(cell, todo, results, lockstep=lockstep, factory=factory, progress=progress)
        elif todo:
            with progress_bar(len(todo), cell.slug().replace("_", " "), progress) as bar:
                for record in cell_records(cell, todo, factory, lockstep):
                    results.append(record)
                    bar.update(1)
        return [results[s] for s in seeds]
