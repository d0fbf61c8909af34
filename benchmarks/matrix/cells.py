"""The matrix family's cells and rows: a (game, partner population, policy) cell of the grid, its
episodes through the generic runner (:func:`benchmarks.runner.run_cell`, one by one or in
lockstep), the rows summarising them and the scripted grid's :func:`evaluate`.

Every finished episode is appended to a JSONL file under ``--out/matrix/`` as soon as it ends,
keyed by a hash of the cell's configuration and the episode seed, so a rerun of the same command
skips what is already recorded and a killed run loses at most the episode in flight (the runner
and the results files are :mod:`benchmarks.runner` and :mod:`benchmarks.results`).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Sequence

import tom_envs
from benchmarks.errors import RunnerError
from benchmarks.results import RESULTS_VERSION, fault_columns, read_records
from benchmarks.runner import Cell as _CellBase
from benchmarks.runner import run_cell
from benchmarks.runner_envs import env_id_for, make_env
from benchmarks.runner_episodes import play, play_lockstep
from policies import BasePolicy
from policies.matrix import OracleBestResponsePolicy, RandomPolicy, TabularRMaxPolicy
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES, check_tom_response
from tom_envs.matrix.partners import resolve_partners
from tom_envs.stats import mean_ci95
from wrappers import ToMRecorder

__all__ = [
    "CELL_FIELDS",
    "COUNTS",
    "LLM_POLICY",
    "METRICS",
    "POLICIES",
    "TOM_METRICS",
    "Cell",
    "Grid",
    "RunSettings",
    "evaluate",
    "load_records",
    "make_cell",
    "matrix_env_id",
    "partner_mean",
    "partner_mean_view",
    "run_episode",
    "run_lockstep",
    "summarise",
]

#: The family's policies by name: factory(game, horizon) -> policy (LLM strategies: ``--policy llm``).
POLICIES: dict[str, Callable[[str, int], BasePolicy]] = {
    "tabular": lambda game, horizon: TabularRMaxPolicy(game, horizon=horizon),
    "random": lambda game, horizon: RandomPolicy(game),
    "oracle": lambda game, horizon: OracleBestResponsePolicy(),
}
LLM_POLICY = "llm"

METRICS = ("regret_per_step", "tom_regret_per_step", "tom_accuracy")
#: ΔToM/T under each response (tom_envs.matrix.games.TOM_RESPONSES), in every row next to METRICS.
TOM_METRICS = tuple(f"tom_regret_per_step_{r}" for r in TOM_RESPONSES)


#: The fields of a :class:`Cell` that key its results (in this order in the records' ``cell``).
CELL_FIELDS = ("game", "partners", "policy", "horizon", "policy_params", "env_kwargs")


def matrix_env_id(game: str) -> str:
    """The registered single-agent id of a matrix game: a ``tom/...`` id as given, a built-in game
    name (``"RPS"``) through its registry entry, a game added with ``tom_envs.matrix.register_matrix_game``
    by its name."""
    if game.startswith("tom/"):
        return game
    try:
        return env_id_for("matrix", game=game)
    except RunnerError:
        named = [
            r.id
            for r in tom_envs.REGISTRY.values()
            if r.family == "matrix"
            and r.kind == "gymnasium"
            and isinstance(r.kwargs.get("game"), dict)
            and r.kwargs["game"].get("name") == game
        ]
        if not named:
            raise RunnerError(
                f"unknown game {game!r}; choose a registered matrix game "
                f"({', '.join(tom_envs.ids(kind='gymnasium', family='matrix'))}) or its name"
            ) from None
        return max(named)


@dataclass(frozen=True)
class Cell(_CellBase):
    """One (game, partner population, policy) cell of the evaluation grid."""

    family: ClassVar[str] = "matrix"

    game: str
    partners: str
    policy: str
    horizon: int = 100
    policy_params: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def env_id(self) -> str:
        return matrix_env_id(self.game)

    def config(self) -> dict[str, Any]:
        keyed = {name: copy.deepcopy(getattr(self, name)) for name in CELL_FIELDS}
        config = {"version": RESULTS_VERSION, "env_id": self.env_id, **keyed}
        if not self.env_kwargs:  # keeps the keys of results recorded before env_kwargs existed
            del config["env_kwargs"]
        return config

    def slug(self) -> str:
        return f"{self.game}_{self.partners}_{self.policy}"

    def make_env(self) -> ToMRecorder:
        return make_env(self.env_id, record=True, partners=self.partners, horizon=self.horizon, **self.env_kwargs)

    def make_policy(self) -> BasePolicy:
        return POLICIES[self.policy](self.game, self.horizon)

    def record(self, seed: int, result: Any) -> dict[str, Any]:
        rec = super().record(seed, result)
        rec["partner"] = rec["episode"]["partner"]
        return rec

    def check(self, record: dict) -> None:
        record["episode"]["regret_per_step"]


def make_cell(game: str, partners: str, policy: str, horizon: int) -> Cell:
    if policy not in POLICIES:
        raise RunnerError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    agent = POLICIES[policy](game, horizon)
    params = getattr(agent, "hyperparameters", {})
    # a reference policy that reads hidden state (the oracle) says what its env must expose
    return Cell(game, partners, policy, horizon, dict(params), dict(getattr(agent, "env_kwargs", {})))


def load_records(path: Path) -> dict[int, dict]:
    """Episode records by seed (see :func:`benchmarks.results.read_records`)."""
    return read_records(path, lambda rec: int(rec["seed"]), lambda rec: rec["episode"]["regret_per_step"])


# ---------------------------------------------------------------------- episodes (the runner's, in this family's shape)
def run_episode(env: ToMRecorder, policy: BasePolicy, seed: int) -> dict[str, Any]:
    """One episode (:func:`benchmarks.runner.play`): the policy predicts, acts and observes every
    round; returns the recorder's episode summary."""
    return play(env, policy, seed).summary


def run_lockstep(envs: Sequence[ToMRecorder], policy: BasePolicy, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Episodes in lockstep (:func:`benchmarks.runner.play_lockstep`). Returns per episode the
    recorder's summary plus ``steps``: the policy's per-round log, if it keeps one
    (``last_step_log()``: prompts, replies, parse failures, decisions per backend call), and
    ``policy_stats`` (``episode_stats()``: e.g. parse failures and fallbacks of the episode)."""
    logs = hasattr(policy, "last_step_log")
    out = []
    for result in play_lockstep(envs, policy, seeds, on_step=lambda step: step.log):
        summary = dict(result.summary)
        if result.policy_stats is not None:
            summary["policy_stats"] = result.policy_stats
        out.append(dict(summary, steps=result.steps) if logs else summary)
    return out


def _metrics(eps: Sequence[dict], tom_response: str) -> dict[str, Any]:
    """Mean and 95 % CI of METRICS (ΔToM under ``tom_response``) and of ΔToM under every response."""
    out: dict[str, Any] = {}
    for key in (*METRICS, *TOM_METRICS):
        source = f"tom_regret_per_step_{tom_response}" if key == "tom_regret_per_step" else key
        out[key], out[key + "_ci"] = mean_ci95([e.get(source) for e in eps])
    return out


#: The LLM counters every row carries (0 for policies that never ask a model): decisions asked,
#: replies that did not parse, re-asks (failed parses followed by another attempt) and random fallbacks.
COUNTS = ("decisions", "parse_failures", "reasks", "fallbacks")


def _counts(eps: Sequence[dict]) -> dict[str, int]:
    """Sums over episodes of the policy's counters (``episode["policy_stats"]``)."""
    out = dict.fromkeys(COUNTS, 0)
    for e in eps:
        stats = e.get("policy_stats") or {}
        for key in ("decisions", "parse_failures", "fallbacks"):
            out[key] += int(stats.get(key, 0) or 0)
    out["reasks"] = out["parse_failures"] - out["fallbacks"]  # a fallback follows the last failed attempt
    return out


def summarise(cell: Cell, records: Sequence[dict], tom_response: str = DEFAULT_TOM_RESPONSE) -> dict[str, Any]:
    """A row: mean and 95 % CI over episodes of each metric, pooled and per partner.

    ``tom_regret_per_step`` is ΔToM/T under ``tom_response`` (named in the row's ``tom_response``);
    ``tom_regret_per_step_stage``, ``..._reciprocal`` and ``..._action_value`` are there for every
    response (None where it does not apply: action values of black-box partners). Every row and
    per-partner entry carries :data:`COUNTS` (re-asks and random fallbacks of LLM policies); a row of
    an LLM policy also the server retries its episodes took (:func:`benchmarks.runner.fault_columns`:
    ``llm_retries``, ``llm_http_5xx``, ...)."""
    check_tom_response(tom_response)
    eps = [r["episode"] for r in records]
    row: dict[str, Any] = {
        "game": cell.game,
        "partners": cell.partners,
        "policy": cell.policy,
        "episodes": len(eps),
        "horizon": cell.horizon,
        "cell_key": cell.key,
        "tom_response": tom_response,
    }
    row.update(_metrics(eps, tom_response))
    row["return"], row["return_ci"] = mean_ci95([e["return"] for e in eps])
    row.update(_counts(eps))
    row.update(fault_columns(records))
    per_partner: dict[str, dict[str, Any]] = {}
    for name in sorted({e["partner"] for e in eps}):
        sub = [e for e in eps if e["partner"] == name]
        per_partner[name] = {"episodes": len(sub), **_metrics(sub, tom_response), **_counts(sub)}
    row["per_partner"] = per_partner
    row["partner_mean"] = partner_mean(cell.game, cell.partners, per_partner)
    return row


def partner_mean(
    game: str, partners: str, per_partner: dict[str, dict[str, Any]], keys: Sequence[str] = (*METRICS, *TOM_METRICS)
) -> dict[str, Any] | None:
    """The estimate of each metric "across opponent policies" (004's wording for its CIs): the mean
    over each partner's episodes, weighted by the partner's probability in the population.

    The pooled row mean weighs partners by how often the run's seeds happened to draw them (seeds
    0-29 draw always_ballet 22 times and always_fight 8 times in IBS); this estimator of the same
    expectation removes that draw noise. The 95 % half-widths of the partners' means are combined as
    independent strata (sqrt of the sum of (weight x half-width)^2). ``weights`` names the partners'
    probabilities. ``keys``: the metrics to combine (each per-partner entry holds ``key`` and
    ``key + "_ci"``). None when a partner of the population has no episode (too few episodes) or the
    population is not one :func:`~tom_envs.matrix.partners.resolve_partners` knows."""
    try:
        dist = resolve_partners(game, partners)
    except TomEnvsError:
        return None
    weights = {name: float(w) for name, w in zip(dist.names, dist.weights) if w > 0}
    if set(weights) != set(per_partner):
        return None
    out: dict[str, Any] = {"weights": weights}
    for key in keys:
        parts = [(w, per_partner[name][key], per_partner[name][key + "_ci"]) for name, w in weights.items()]
        if any(m is None or ci is None for _, m, ci in parts):
            out[key] = out[key + "_ci"] = None
            continue
        out[key] = sum(w * m for w, m, _ in parts)
        out[key + "_ci"] = math.sqrt(sum((w * ci) ** 2 for w, _, ci in parts))
    return out


def partner_mean_view(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its metrics replaced by the partner-weighted estimates (:func:`partner_mean`) and
    ``estimator`` set to ``"partner_mean"``; the row itself (``estimator`` ``"pooled"``) when it has none."""
    est = row.get("partner_mean")
    if not est:
        return {**row, "estimator": "pooled"}
    return {**row, **{k: v for k, v in est.items() if k != "weights"}, "estimator": "partner_mean"}


# ---------------------------------------------------------------------- the grid of a run
@dataclass(frozen=True)
class Grid:
    """The cells and seeds of a run: every (game, partner population, policy) combination, episodes
    ``seed .. seed + episodes - 1`` of ``horizon`` rounds each (LLM runs: ``policies`` are the
    prompting strategies)."""

    games: Sequence[str]
    partners: Sequence[str]
    policies: Sequence[str]
    episodes: int = 30
    seed: int = 0
    horizon: int = 100

    def __post_init__(self) -> None:
        for name in ("games", "partners", "policies"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.episodes < 1:
            raise RunnerError(f"--episodes must be at least 1, got {self.episodes}")

    @property
    def seeds(self) -> list[int]:
        return list(range(self.seed, self.seed + self.episodes))

    def combinations(self) -> list[tuple[str, str, str]]:
        """(game, partners, policy) in the order of the rows."""
        return [(game, pop, pol) for game in self.games for pop in self.partners for pol in self.policies]


@dataclass(frozen=True)
class RunSettings:
    """How a grid runs (none of it changes a record).

    Attributes:
        progress: a bar per cell (None: only when stderr is a terminal).
        lockstep: episodes stepped at once (scripted: default 1; LLM: None, all episodes of a cell).
        executor: runs the missing scripted episodes as parallel tasks first (e.g.
            :class:`benchmarks.distributed.RayExecutor`).
        tom_response: the ΔToM response of the rows' ``tom_regret_per_step`` (see :func:`summarise`).
    """

    progress: bool | None = False
    lockstep: int | None = 1
    executor: Any = None
    tom_response: str = DEFAULT_TOM_RESPONSE


def evaluate(
    games: Iterable[str],
    partners: Iterable[str],
    policies: Iterable[str],
    episodes: int,
    seed: int,
    horizon: int,
    out: Path,
    **settings: Any,
) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """Run (or resume) the whole grid; returns the rows and the records per cell.

    ``settings`` are :class:`RunSettings`' fields (``progress``, ``lockstep``, ``executor``,
    ``tom_response``); with an ``executor`` the missing episodes of all cells run as parallel tasks
    first and the driver writes their records as they arrive, so the results files and rows are the
    same as with the default in-process loop.
    """
    return evaluate_grid(Grid(games, partners, policies, episodes, seed, horizon), Path(out), RunSettings(**settings))


def evaluate_grid(
    grid: Grid, out: Path, run: RunSettings = RunSettings()
) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """:func:`evaluate` of a :class:`Grid`: each cell through :func:`benchmarks.runner.run_cell`."""
    seeds = grid.seeds
    cells = [make_cell(game, pop, pol, grid.horizon) for game, pop, pol in grid.combinations()]
    lockstep = run.lockstep or 1
    if run.executor is not None:
        run.executor.run(cells, seeds, out, lockstep=lockstep, progress=run.progress)
    rows, records = [], {}
    for cell in cells:
        recs = run_cell(cell, seeds, out, run.progress, lockstep=lockstep)
        records[(cell.game, cell.partners, cell.policy)] = recs
        rows.append(summarise(cell, recs, run.tom_response))
    return rows, records
