"""Live persuasion episodes as a cell of the evaluation runner: :class:`LiveCell` keys, plays and records one
persuader's episodes; :func:`stored_episodes` reads a rerun's episodes back from ``--out`` and plays the rest
(appended at once); the LLM counters of an episode are differences of a caller's running counters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from benchmarks.persuasion.live_play import play_episode
from benchmarks.results import FAULTS_FIELD, RESULTS_VERSION, ResultsFile, results_path
from benchmarks.runner import Cell, run_cell
from benchmarks.runner_episodes import EpisodeResult
from policies.base import BasePolicy
from policies.llm.caller import FAULT_COUNTERS

#: A live episode to play: (scenario family, seed).
LiveJob = tuple[str, int]


@dataclass(frozen=True, eq=False)
class LiveCell(Cell):
    """One persuader's live episodes as a cell of the runner (:func:`benchmarks.runner.run_cell`): its
    "seeds" are :data:`LiveJob` s, its records ``{"version", "policy", "family", "seed", "horizon",
    "regret_against", "episode", "references", "llm_stats"}`` (``regret_against``: which regret of the
    episode is the row's ``regret``, ``"bayes"`` -> ``episode["regret"]``, ``"oracle"`` ->
    ``episode["oracle_regret"]``; ``references``: the family's exact success of random, best open-loop,
    Bayes-optimal fair and oracle persuaders; ``llm_stats``: the LLM persuader's counters in that episode).

    Attributes:
        identity: what keys the results file (benchmark, env, persuader, horizon, reader, LLM).
        env: the recorded live env.
        policy: the persuader.
        refs: each family's exact references (:func:`tom_envs.persuasion.planning.references`).
        regret_against: ``"bayes"`` or ``"oracle"``.
        reader: the env's LLM reader (``--reader llm``) or None: the server retries its requests
            took in an episode go into the record's ``llm_faults`` with the persuader's.
    """

    identity: dict[str, Any]
    env: Any
    policy: BasePolicy
    refs: dict[str, dict[str, Any]]
    regret_against: str = "bayes"
    reader: Any = None

    def config(self) -> dict[str, Any]:
        return dict(self.identity)

    def slug(self) -> str:
        return f"live_{self.identity['policy']}"

    def path(self, out: Path) -> Path:
        return results_path(
            Path(out) / "persuasion", f"live_{self.identity['policy'].replace('-', '_')}", self.identity
        )

    def results(self, out: Path) -> ResultsFile:
        return ResultsFile(
            self.path(out),
            key=lambda rec: (str(rec["family"]), int(rec["seed"])),
            check=lambda rec: (rec["episode"]["success"], rec["episode"]["regret"]),
        )

    def make_env(self) -> Any:
        return self.env

    def make_policy(self) -> BasePolicy:
        return self.policy

    def play(self, env: Any, policy: Any, seed: LiveJob) -> EpisodeResult:  # type: ignore[override]
        family, s = seed
        before = dict(getattr(policy, "stats", {}))
        read_before = dict(getattr(self.reader, "stats", {}))
        episode = play_episode(env, policy, s, options={"family": family})
        stats: Any = counters_since(getattr(policy, "stats", {}), before)
        if self.reader is not None:  # the reader's retries join the persuader's (the runner moves them to llm_faults)
            read = counters_since(self.reader.stats, read_before)
            if hasattr(policy, "stats"):
                for name in FAULT_COUNTERS:
                    if read.get(name):
                        stats[name] = stats.get(name, 0) + read[name]
            else:
                stats = {"reader": read}
            episode = {**episode, "_reader_stats": {k: v for k, v in read.items() if k not in FAULT_COUNTERS}}
        return EpisodeResult(s, episode, {}, policy_stats=stats)

    def record(self, seed: LiveJob, result: EpisodeResult) -> dict[str, Any]:  # type: ignore[override]
        family, s = seed
        summary = dict(result.summary)
        reader_stats = summary.pop("_reader_stats", None)
        rec: dict[str, Any] = {
            "version": RESULTS_VERSION,
            "policy": self.identity["policy"],
            "family": family,
            "seed": s,
            "horizon": self.identity["horizon"],
            "regret_against": self.regret_against,
            "episode": summary,
            "references": {k: v for k, v in self.refs[family].items() if k != "family"},
        }
        for part in ("llm", "reader"):  # the model's exact identity (persuader, reader) in every record
            if isinstance(self.identity.get(part), dict) and self.identity[part].get("model_identity"):
                rec[part] = self.identity[part]
        if hasattr(self.policy, "stats"):
            rec["llm_stats"] = result.policy_stats
        if reader_stats is not None:  # the LLM reader's decisions, parse failures and fallbacks in this episode
            rec["reader_stats"] = reader_stats
        return rec


def stored_episodes(
    cell: LiveCell, jobs: Sequence[LiveJob], out: Path, progress: bool | None = False
) -> dict[LiveJob, dict]:
    """The episodes ``jobs`` of ``cell``: read from its results file under ``out / "persuasion"`` where
    stored, else played (as :func:`live_rows` plays them) and appended at once by the runner
    (:func:`benchmarks.runner.run_cell`). Returns the episode summaries by job (an LLM persuader's
    counters under ``_llm_stats``, the server retries its requests took under ``_llm_faults``)."""
    records = run_cell(cell, list(jobs), Path(out), progress)
    return {
        job: {
            **rec["episode"],
            **({"_llm_stats": rec["llm_stats"]} if "llm_stats" in rec else {}),
            **({"_llm_faults": rec[FAULTS_FIELD]} if FAULTS_FIELD in rec else {}),
        }
        for job, rec in zip(jobs, records)
    }


def counters_since(stats: Any, before: dict[str, Any]) -> dict[str, Any]:
    """A caller's counters now minus ``before`` (non-numbers as they are now)."""
    return {k: v - before.get(k, 0) if isinstance(v, (int, float)) else v for k, v in dict(stats).items()}


def sum_stats(stats: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-episode counters summed (non-numbers: the last one)."""
    total: dict[str, Any] = {}
    for st in stats:
        for k, v in st.items():
            total[k] = total.get(k, 0) + v if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return total
