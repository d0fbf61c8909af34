"""``tom-envs matrix``: evaluate policies on (game, partner population) cells of the matrix games.

Every finished episode is appended to a JSONL file under ``--out/matrix/`` as soon as it ends,
keyed by a hash of the cell's configuration and the episode seed, so a rerun of the same command
skips what is already recorded and a killed run loses at most the episode in flight (the runner
and the results files are :mod:`benchmarks.runner` and :mod:`benchmarks.results`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Sequence

import tom_envs
from benchmarks.cli import (
    add_llm_options,
    add_run_options,
    backend_from_args,
    build_backend,
    comma_list,
    positive_int,
    split_list,
)
from benchmarks.errors import RunnerError
from benchmarks.family import Benchmark, register
from benchmarks.matrix.llm import (
    FALLBACK_NOTE, LAYOUTS, fallbacks_cell, format_ci, format_protocol_table, parse_duration,
)
from benchmarks.matrix.published import PUBLISHED_TABULAR  # noqa: F401  (the command's tables)
from benchmarks.results import RESULTS_VERSION, ResultsFileWarning, append_record, read_records
from benchmarks.runner import Cell as _CellBase
from benchmarks.runner import cell_records, env_id_for, make_env, play, play_lockstep, run_cell
from tom_envs.stats import mean_ci95
from policies import BasePolicy
from policies.matrix import OracleBestResponsePolicy, RandomPolicy, TabularRMaxPolicy
from policies.matrix.llm.strategies import SCORING
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, LABEL_SETS, TOM_RESPONSES, check_tom_response
from tom_envs.matrix.partners import resolve_partners
from wrappers import ToMRecorder

__all__ = [
    "METRICS", "POLICIES", "PUBLISHED_TABULAR", "RESULTS_VERSION", "TOM_METRICS", "Cell", "ResultsFileWarning",
    "RunnerError", "append_record", "build_backend", "cell_records", "evaluate", "evaluate_llm", "format_table",
    "COUNTS", "load_records", "make_cell", "matrix_env_id", "meets_target", "plot", "read_records", "run_cell", "run_episode",
    "run_lockstep", "summarise", "tom_regret_close",
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


def matrix_env_id(game: str) -> str:
    """The registered single-agent id of a matrix game: a ``tom/...`` id as given, a built-in game
    name (``"RPS"``) through its registry entry, a game added with ``tom_envs.matrix.register_matrix_game``
    by its name."""
    if game.startswith("tom/"):
        return game
    try:
        return env_id_for("matrix", game=game)
    except RunnerError:
        named = [r.id for r in tom_envs.REGISTRY.values() if r.family == "matrix" and r.kind == "gymnasium"
                 and isinstance(r.kwargs.get("game"), dict) and r.kwargs["game"].get("name") == game]
        if not named:
            raise RunnerError(f"unknown game {game!r}; choose a registered matrix game "
                              f"({', '.join(tom_envs.ids(kind='gymnasium', family='matrix'))}) or its name") from None
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
        config = {"version": RESULTS_VERSION, "env_id": self.env_id, **asdict(self)}
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
    per-partner entry carries :data:`COUNTS` (re-asks and random fallbacks of LLM policies)."""
    check_tom_response(tom_response)
    eps = [r["episode"] for r in records]
    row: dict[str, Any] = {"game": cell.game, "partners": cell.partners, "policy": cell.policy, "episodes": len(eps),
                           "horizon": cell.horizon, "cell_key": cell.key, "tom_response": tom_response}
    row.update(_metrics(eps, tom_response))
    row["return"], row["return_ci"] = mean_ci95([e["return"] for e in eps])
    row.update(_counts(eps))
    per_partner: dict[str, dict[str, Any]] = {}
    for name in sorted({e["partner"] for e in eps}):
        sub = [e for e in eps if e["partner"] == name]
        per_partner[name] = {"episodes": len(sub), **_metrics(sub, tom_response), **_counts(sub)}
    row["per_partner"] = per_partner
    row["partner_mean"] = partner_mean(cell.game, cell.partners, per_partner)
    return row


def partner_mean(game: str, partners: str, per_partner: dict[str, dict[str, Any]],
                 keys: Sequence[str] = (*METRICS, *TOM_METRICS)) -> dict[str, Any] | None:
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


def evaluate(games: Iterable[str], partners: Iterable[str], policies: Iterable[str], episodes: int, seed: int,
             horizon: int, out: Path, progress: bool | None = False, lockstep: int = 1,
             executor: Any = None,
             tom_response: str = DEFAULT_TOM_RESPONSE) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """Run (or resume) the whole grid; returns the rows and the records per cell (``tom_response``:
    the ΔToM response of the rows' ``tom_regret_per_step``, see :func:`summarise`).

    ``executor`` (e.g. :class:`benchmarks.distributed.RayExecutor`) runs the missing episodes of
    all cells as parallel tasks first; the driver writes their records as they arrive, so the
    results files and rows are the same as with the default in-process loop.
    """
    if episodes < 1:
        raise RunnerError(f"--episodes must be at least 1, got {episodes}")
    seeds = list(range(seed, seed + episodes))
    cells = [make_cell(game, pop, pol, horizon) for game in games for pop in partners for pol in policies]
    if executor is not None:
        executor.run(cells, seeds, out, lockstep=lockstep, progress=progress)
    rows, records = [], {}
    for cell in cells:
        recs = run_cell(cell, seeds, out, progress, lockstep=lockstep)
        records[(cell.game, cell.partners, cell.policy)] = recs
        rows.append(summarise(cell, recs, tom_response))
    return rows, records


def evaluate_llm(games: Iterable[str], partners: Iterable[str], strategies: Iterable[str], episodes: int, seed: int,
                 horizon: int, out: Path, backend: Any, backend_id: dict[str, Any], label_set: str = "neutral",
                 max_resamples: int = 10, fallback: str = "raise", progress: bool | None = False,
                 lockstep: int | None = None, tom_response: str = DEFAULT_TOM_RESPONSE, *,
                 temperature: float | None = None, max_tokens: int | None = None, history_window: int | None = None,
                 scoring: str = "sum", max_model_len: int | None = None, time_budget_s: float | None = None,
                 max_episodes: int | None = None) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """004's prompting strategies on every cell, all episodes of a cell in lockstep by default.

    Before anything runs, the context is planned (:func:`policies.matrix.llm.context.check_context`):
    the longest request of every (strategy, game) at round ``horizon``, counted with the backend's
    tokenizer against ``max_model_len`` (default: the backend's), and a run that would not fit stops
    at once with :class:`~policies.matrix.llm.context.ContextTooLong` (the numbers and the flags that
    fix it). Every finished round of the lockstep batch in flight is journaled
    (:func:`benchmarks.matrix.llm.play_checkpointed`): a crash or kill loses at most that round, and
    a rerun resumes from it.

    004's protocol: with ``time_budget_s`` (and ``max_episodes``, default 100) a cell plays at least
    ``episodes`` episodes, then further lockstep batches while its wall time (summed over the runs
    that made its records) is under the budget, up to ``max_episodes``; without a budget it plays
    ``max_episodes`` (or ``episodes``). Rows summarise every recorded episode of the cell's seeds.

    ``backend_id`` (backend kind, model, base URL -- never an API key) goes into the cell keys, so
    results of different models never mix and reruns resume; so do the settings that can change a
    cell's results and only those (:attr:`~policies.matrix.llm.policy.LLMMatrixPolicy.result_params`: an LM
    cell, which never samples, keeps its key whatever ``fallback``, ``temperature`` or ``max_tokens``).
    """
    from policies.matrix.llm import STRATEGIES, make_llm_policy
    from policies.matrix.llm.context import check_context
    from policies.matrix.llm.policy import DEFAULT_TEMPERATURE
    from policies.matrix.llm.strategies import backend_tokenizer

    strategies, games, partners = list(strategies), list(games), list(partners)
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise RunnerError(f"unknown strategies {unknown}; choose from {', '.join(STRATEGIES)}")
    target = max_episodes if max_episodes is not None else (100 if time_budget_s is not None else episodes)
    if target < episodes:
        raise RunnerError(f"--max-episodes ({target}) must be at least --episodes ({episodes}), the minimum per cell")
    temperature = DEFAULT_TEMPERATURE if temperature is None else temperature
    options = {"label_set": label_set, "horizon": horizon, "seed": seed, "max_resamples": max_resamples,
               "fallback": fallback, "temperature": temperature, "max_tokens": max_tokens,
               "history_window": history_window, "scoring": scoring}
    planned: dict[tuple[str, str], int] = {}
    limit = max_model_len or getattr(backend, "max_model_len", None)
    tokenizer = backend_tokenizer(backend)
    if limit and tokenizer is not None:
        needs = check_context(strategies, games, tokenizer, int(limit), label_set=label_set, horizon=horizon,
                              history_window=history_window, max_tokens=max_tokens)
        planned = {(n.game, n.strategy): n.tokens for n in needs}
    elif limit:
        print(f"warning: the context was not planned (the backend has no tokenizer to count prompts with; give "
              f"--tokenizer); a prompt longer than {limit} tokens fails when it is sent", file=sys.stderr)
    seeds = list(range(seed, seed + episodes))
    more = list(range(seed + episodes, seed + target))
    rows, records = [], {}
    for game in games:
        for pop in partners:
            for strategy in strategies:
                policy = make_llm_policy(strategy, backend, game, **options)
                params = {**backend_id, **policy.result_params}
                env_kwargs = {"expose_partner_action": True} if strategy.startswith("oracle") else {}
                cell = Cell(game, pop, f"llm:{strategy}", horizon, params, env_kwargs)
                recs = _run_llm_cell(cell, policy, seeds, more, out, lockstep or episodes, progress, time_budget_s)
                records[(game, pop, cell.policy)] = recs
                row = summarise(cell, recs, tom_response)
                row.update(strategy=strategy, model=backend_id.get("model"), label_set=label_set,
                           history_window=history_window, scoring=scoring if policy.strategy.needs_scoring else None,
                           context_tokens=planned.get((policy.game.name, policy.strategy.name)),
                           time_budget_s=time_budget_s, max_episodes=target,
                           wall_s=round(sum(float(r.get("wall_s") or 0.0) for r in recs), 3), settings=params)
                rows.append(row)
    return rows, records


def _run_llm_cell(cell: Cell, policy: BasePolicy, seeds: Sequence[int], more: Sequence[int], out: Path, lockstep: int,
                  progress: bool | None, time_budget_s: float | None) -> list[dict]:
    """Every recorded episode of an LLM cell after playing what is missing (see :func:`evaluate_llm`):
    ``seeds`` always, ``more`` while the budget lasts (all of them without a budget)."""
    from benchmarks.matrix.llm import Journal, play_checkpointed
    from benchmarks.records import STEPS_FORMAT
    from benchmarks.runner import progress_bar

    size = max(1, int(lockstep))
    with cell.results(out) as results:
        path = cell.path(out)
        journal = Journal(path.with_name(path.name + ".inflight"), cell.key)
        spent = sum(float(results[s].get("wall_s") or 0.0) for s in [*seeds, *more] if s in results)
        envs: list[Any] = []

        def play(batch: list[int]) -> float:
            while len(envs) < len(batch):
                envs.append(cell.make_env())
            played, wall = play_checkpointed(envs[:len(batch)], policy, batch, journal,
                                             on_round=lambda r: bar.set_postfix_str(f"round {r}/{cell.horizon}"))
            for s, result in zip(batch, played):
                record = cell.record(s, result)
                record["steps_format"] = STEPS_FORMAT
                record["wall_s"] = wall / len(batch)
                results.append(record)
            journal.remove()
            return wall

        def batches(todo: list[int]) -> list[list[int]]:
            if journal.seeds and set(journal.seeds) <= set(todo):  # the batch a kill interrupted goes first
                rest = [s for s in todo if s not in journal.seeds]
                return [list(journal.seeds)] + [rest[i:i + size] for i in range(0, len(rest), size)]
            return [todo[i:i + size] for i in range(0, len(todo), size)]

        todo = results.missing(seeds)
        budget = time_budget_s is not None
        extra = results.missing(more)
        bar = progress_bar(len(todo) + (0 if budget else len(extra)), cell.slug().replace("_", " "), progress)
        try:
            for batch in batches(todo):
                spent += play(batch)
                bar.update(len(batch))
            for batch in batches(extra):
                if budget and spent >= time_budget_s:  # type: ignore[operator]
                    break
                spent += play(batch)
                bar.update(len(batch))
        finally:
            bar.close()
        return [results[s] for s in [*seeds, *more] if s in results]


# ---------------------------------------------------------------------- output


#: How a row's means were taken (a row's ``estimator``; rows without one are pooled).
ESTIMATORS = {
    "pooled": "mean over all episodes (partners as often as the seeds drew them)",
    "partner_mean": "mean over each partner's episodes, weighted by the partner's probability in the population "
                    "(004: 'the mean estimate across opponent policies'; the JSON rows' partner_mean)",
}


def format_table(rows: Sequence[dict], published: bool = False) -> str:
    """004's Table 4 layout; with ``published``, 004's Tabular values and the target checks beside.

    The ΔToM/T column is each row's ``tom_regret_per_step``; the line under the table names its
    response (the rows' ``tom_response``)."""
    llm = any(r.get("strategy") for r in rows)  # LLM rows: model, labels, re-asks and fallbacks too
    width = max([8, *(len(r["policy"]) for r in rows)])  # long policy names keep the columns aligned
    extra_w = [max([5, *(len(str(r.get("model") or "N/A")) for r in rows)]),
               max([6, *(len(str(r.get("label_set") or "N/A")) for r in rows)])] if llm else []
    head = f"{'policy':<{width}} {'game':<4} {'partners':<14} {'ΔFunctional/T':>16} {'ΔToM/T':>16} {'ToM %':>13}"
    if llm:
        head = (f"{'model':<{extra_w[0]}} {'labels':<{extra_w[1]}} " + head
                + f" {'episodes':>8} {'re-asks':>8} {'fallbacks':>10}")
    if published:
        head += f"  {'004 ΔF/T':>8} {'004 ΔToM':>8} {'004 ToM%':>8}  target  ΔToM±0.03"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (f"{r['policy']:<{width}} {r['game']:<4} {r['partners']:<14} "
                f"{format_ci(r['regret_per_step'], r['regret_per_step_ci'], 3):>16} "
                f"{format_ci(r['tom_regret_per_step'], r['tom_regret_per_step_ci'], 3):>16} "
                f"{format_ci(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>13}")
        if llm:
            flagged = fallbacks_cell(r.get("fallbacks", 0))
            line = (f"{str(r.get('model') or 'N/A'):<{extra_w[0]}} {str(r.get('label_set') or 'N/A'):<{extra_w[1]}} "
                    + line + f" {r['episodes']:>8} {r.get('reasks', 0):>8} {flagged:>10}")
        pub = PUBLISHED_TABULAR.get((r["game"], r["partners"]))
        if published and pub is not None:
            line += (f"  {pub[0]:>8.3f} {pub[1]:>8.3f} {pub[2]:>8.1f}  {'met' if meets_target(r) else 'MISSED':<6}  "
                     f"{'met' if tom_regret_close(r) else 'MISSED'}")
        lines.append(line)
    if any(r.get("fallbacks") for r in rows):
        lines.append(FALLBACK_NOTE)
    estimators = sorted({r["estimator"] for r in rows if r.get("estimator")})
    if estimators:
        lines.append("Estimator: " + " / ".join(ESTIMATORS[e] for e in estimators) + ".")
    responses = sorted({r.get("tom_response", DEFAULT_TOM_RESPONSE) for r in rows}) or [DEFAULT_TOM_RESPONSE]
    lines.append(f"ΔToM/T: the {' / '.join(responses)} response (docs/architecture.md, 'Metric definitions'); "
                 f"the JSON rows hold all of {', '.join(TOM_RESPONSES)}.")
    return "\n".join(lines)


def meets_target(row: dict) -> bool:
    """Issue target: regret/T <= 1.5 x published + 0.03 and ToM % >= published - 3."""
    reg, _, tom = PUBLISHED_TABULAR[(row["game"], row["partners"])]
    return (row["regret_per_step"] is not None and row["regret_per_step"] <= 1.5 * reg + 0.03
            and row["tom_accuracy"] is not None and row["tom_accuracy"] >= tom - 3)


def tom_regret_close(row: dict, tol: float = 0.03) -> bool:
    """Issue 17's ΔToM target: the row's ΔToM/T within ``tol`` of 004's published Tabular value."""
    published = PUBLISHED_TABULAR[(row["game"], row["partners"])][1]
    return row["tom_regret_per_step"] is not None and abs(row["tom_regret_per_step"] - published) <= tol + 1e-9


def plot(records: dict[tuple, list[dict]], out_dir: Path) -> list[Path]:
    """PNGs of regret per step and ToM accuracy over the rounds (mean over episodes), one line per
    policy, one pair of figures per (game, partners) cell (like 004's Figures 19-43)."""
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    cells = sorted({(g, p) for g, p, _ in records})
    for game, pop in cells:
        for metric, ylabel, fname in (("regrets", "regret per step (r*_t - r_t)", "regret"),
                                      ("tom_correct", "ToM accuracy (%)", "tom")):
            fig, ax = plt.subplots(figsize=(6, 3.5))
            for (g, p, pol), recs in records.items():
                if (g, p) != (game, pop):
                    continue
                series = [r["episode"][metric] for r in recs if r["episode"][metric]]
                if not series:
                    continue
                arr = np.array([[np.nan if x is None else float(x) for x in s] for s in series], dtype=float)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # rounds nobody predicted
                    curve = np.nanmean(arr, axis=0) * (100.0 if metric == "tom_correct" else 1.0)
                ax.plot(np.arange(1, len(curve) + 1), curve, label=pol)
            ax.set_xlabel("round")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{game} vs {pop}")
            ax.legend()
            fig.tight_layout()
            path = out_dir / f"{game}_{pop}_{fname}.png"
            fig.savefig(path, dpi=100)
            plt.close(fig)
            written.append(path)
    return written


# ---------------------------------------------------------------------- the command
def duration(text: str) -> float:
    """``type=`` for ``--time-budget``: seconds from ``24h``, ``90m``, ``3600s`` or ``3600``."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def non_negative_float(text: str) -> float:
    """``type=`` for a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def _is_partner_item(_: str) -> bool:
    return True  # partner names and queries are checked when the env is made (a named error)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs matrix``'s options (the shared run options, the grid, Ray, the LLM group)."""
    add_run_options(parser, episodes=30, seed_help="episode i uses seed + i (env, partner draw and policy)",
                    plot="write PNGs of regret and ToM accuracy per round into DIR", policy="tabular",
                    policy_type=comma_list([*POLICIES, LLM_POLICY], name="policy"),
                    policy_help=f"comma-separated: {', '.join(POLICIES)}; or {LLM_POLICY} (--strategies, the LLM group)")
    parser.add_argument("--games", type=comma_list(name="game"), default="RPS,IBS,IPD",
                        help="comma-separated matrix games (names or registered ids)")
    parser.add_argument("--partners", type=comma_list(name="partner population"), default="single_action,tit_for_tat",
                        help="comma-separated partner populations (or partner names), one cell each")
    parser.add_argument("--horizon", type=positive_int, default=100, help="rounds per episode")
    dist = parser.add_argument_group("past one machine (benchmarks/distributed.py)")
    dist.add_argument("--executor", choices=["local", "ray"], default="local",
                      help="ray: the missing episodes run as Ray tasks; the driver writes the results as they arrive")
    dist.add_argument("--ray-address", default=None,
                      help="join a running cluster ('auto', 'ray://host:10001'); default: start a local one")
    dist.add_argument("--ray-num-cpus", type=positive_int, default=None, help="CPUs of the local Ray instance (default: all)")
    dist.add_argument("--ray-chunk", type=positive_int, default=25, help="episodes per Ray task")
    llm = add_llm_options(parser, lockstep=None,
                          lockstep_help="episodes stepped at once through batched policy calls (default: 1; all "
                                        "episodes for llm)",
                          max_model_len_help="context length: vllm builds its engine with it (default 2048); with "
                                             "either backend the run is planned against it before it starts")
    llm.add_argument("--strategies", type=comma_list(name="strategy"), default="lm,qa,cot",
                     help="comma-separated prompting strategies of 004 (policies.matrix.llm.STRATEGIES)")
    llm.add_argument("--label-set", choices=LABEL_SETS,
                     default="neutral", help="the action labels the LLM reads")
    llm.add_argument("--temperature", type=non_negative_float, default=None,
                     help="sampling temperature of the generating strategies (default: 0.7)")
    llm.add_argument("--max-tokens", type=positive_int, default=None,
                     help="generation cap of every generating stage; raise it for reasoning models, which the "
                          "defaults truncate (default: qa 16, cot/plans/s2a 256, reflect 128)")
    llm.add_argument("--history-window", type=positive_int, default=None, metavar="K",
                     help="prompts show only the latest K rounds of history (for short contexts; in the results "
                          "and cell keys; default: every round)")
    llm.add_argument("--scoring", choices=SCORING, default="sum",
                     help="LM prompting's label scores: sum of token log-probabilities (004) or mean "
                          "(length-normalised by each label's token count, for multi-token labels)")
    proto = parser.add_argument_group("004's protocol (--policy llm)")
    proto.add_argument("--time-budget", type=duration, default=None, metavar="DURATION",
                       help="per cell: after --episodes episodes, play further lockstep batches while the cell's "
                            "wall time is under DURATION (24h, 90m, 3600s), up to --max-episodes; 004: --time-budget "
                            "24h --max-episodes 100 --episodes 30 (default: no budget)")
    proto.add_argument("--max-episodes", type=positive_int, default=None,
                       help="most episodes per cell (default: 100 with --time-budget, else --episodes)")
    parser.add_argument("--table", choices=LAYOUTS, default="table4",
                        help="table4: one line per cell (004 Table 4); table2: strategy x game lines with ΔF/T, ΔToM/T, "
                             "ToM %%; table3 / table10: strategy lines x game columns of ΔF/T (table10 by model); "
                             "all with model and label-set columns")
    parser.add_argument("--tom-response", choices=TOM_RESPONSES, default=DEFAULT_TOM_RESPONSE,
                        help="the response ΔToM/T charges wrong predictions with in the table and in the rows' "
                             "tom_regret_per_step (every row also holds all three; docs/architecture.md)")


def run(args: argparse.Namespace) -> int:
    """``tom-envs matrix``: the rows as 004's table or JSON, plots with ``--plot``."""
    progress = args.format != "json" and None  # None: a bar when stderr is a terminal
    policies = split_list(args.policy)
    if LLM_POLICY in policies:
        if policies != [LLM_POLICY]:
            raise RunnerError("--policy llm runs alone (its cells are --strategies); run the scripted policies "
                              "in another command")
        if args.executor != "local":
            raise RunnerError("--executor ray distributes the scripted and tabular grid; --policy llm keeps one "
                              "in-process engine that batches all episodes (drop --executor, or serve the model "
                              "and point --backend openai at it)")
        backend = backend_from_args(args)
        ident = {"backend": args.backend, "model": args.model, "base_url": args.base_url}
        try:
            rows, records = evaluate_llm(split_list(args.games), split_list(args.partners), split_list(args.strategies),
                                         args.episodes, args.seed, args.horizon, Path(args.out), backend, ident,
                                         args.label_set, args.max_resamples, args.fallback, progress, args.lockstep,
                                         tom_response=args.tom_response, temperature=args.temperature,
                                         max_tokens=args.max_tokens, history_window=args.history_window,
                                         scoring=args.scoring, max_model_len=args.max_model_len,
                                         time_budget_s=args.time_budget, max_episodes=args.max_episodes)
        finally:
            backend.close()
    else:
        if args.time_budget is not None or args.max_episodes is not None:
            raise RunnerError("--time-budget and --max-episodes are 004's protocol for --policy llm; the scripted and "
                              "tabular policies play --episodes episodes per cell")
        executor = None
        if args.executor == "ray":
            from benchmarks.distributed import RayExecutor

            executor = RayExecutor(args.ray_address, args.ray_num_cpus, args.ray_chunk)
        rows, records = evaluate(split_list(args.games), split_list(args.partners), policies, args.episodes, args.seed,
                                 args.horizon, Path(args.out), progress, args.lockstep or 1, executor,
                                 tom_response=args.tom_response)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        print(format_table(rows) if args.table == "table4" else format_protocol_table(rows, args.table))
    if args.plot:
        for path in plot(records, Path(args.plot)):
            if args.format != "json":
                print(f"wrote {path}")
    return 0


BENCHMARK = register(Benchmark(
    name="matrix", family="matrix", help="evaluate policies on (game, partner population) cells of the matrix games",
    description=__doc__, policies={name: (lambda cell, name=name: POLICIES[name](cell.game, cell.horizon))
                                   for name in POLICIES},
    metrics=METRICS, published={k: dict(zip(METRICS, v)) for k, v in PUBLISHED_TABULAR.items()},
    arguments=add_arguments, run=run,
))
