"""``tom-envs matrix``: evaluate policies on (game, partner population) cells of the matrix games.

Every finished episode is appended to a JSONL file under ``--out/matrix/`` as soon as it ends,
keyed by a hash of the cell's configuration and the episode seed, so a rerun of the same command
skips what is already recorded and a killed run loses at most the episode in flight (the runner
and the results files are :mod:`benchmarks.runner` and :mod:`benchmarks.results`).
"""

from __future__ import annotations

import argparse
import json
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
from benchmarks.results import RESULTS_VERSION, ResultsFileWarning, append_record, read_records
from benchmarks.runner import Cell as _CellBase
from benchmarks.runner import cell_records, env_id_for, make_env, play, play_lockstep, run_cell
from benchmarks.stats import mean_ci95
from policies import BasePolicy, OracleBestResponsePolicy, RandomPolicy, TabularRMaxPolicy
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, LABEL_SETS, TOM_RESPONSES, check_tom_response
from wrappers import ToMRecorder

__all__ = [
    "METRICS", "POLICIES", "PUBLISHED_TABULAR", "RESULTS_VERSION", "TOM_METRICS", "Cell", "ResultsFileWarning",
    "RunnerError", "append_record", "build_backend", "cell_records", "evaluate", "evaluate_llm", "format_table",
    "load_records", "make_cell", "matrix_env_id", "meets_target", "plot", "read_records", "run_cell", "run_episode",
    "run_lockstep", "summarise", "tom_regret_close",
]

#: The family's policies by name: factory(game, horizon) -> policy (LLM strategies: ``--policy llm``).
POLICIES: dict[str, Callable[[str, int], BasePolicy]] = {
    "tabular": lambda game, horizon: TabularRMaxPolicy(game, horizon=horizon),
    "random": lambda game, horizon: RandomPolicy(game),
    "oracle": lambda game, horizon: OracleBestResponsePolicy(),
}
LLM_POLICY = "llm"

#: 004's Table 4 (Tabular rows): (ΔFunctional/T, ΔToM/T, ToM %). 004's ΔToM is reproduced by the
#: ``reciprocal`` response (docs/architecture.md, "Metric definitions").
PUBLISHED_TABULAR: dict[tuple[str, str], tuple[float, float, float]] = {
    ("RPS", "single_action"): (0.083, 0.039, 97.4),
    ("RPS", "tit_for_tat"): (0.224, 0.105, 93.0),
    ("IBS", "single_action"): (0.211, 0.088, 98.7),
    ("IBS", "tit_for_tat"): (0.468, 0.162, 98.1),
    ("IPD", "single_action"): (0.086, 0.071, 98.6),
    ("IPD", "tit_for_tat"): (0.248, 0.070, 98.0),
}

METRICS = ("regret_per_step", "tom_regret_per_step", "tom_accuracy")
#: ΔToM/T under each response (tom_envs.matrix.games.TOM_RESPONSES), in every row next to METRICS.
TOM_METRICS = tuple(f"tom_regret_per_step_{r}" for r in TOM_RESPONSES)


def matrix_env_id(game: str) -> str:
    """The registered single-agent id of a matrix game: a ``tom/...`` id as given, a built-in game
    name (``"RPS"``) through its registry entry, a game added with ``tom_envs.register_matrix_game``
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


def summarise(cell: Cell, records: Sequence[dict], tom_response: str = DEFAULT_TOM_RESPONSE) -> dict[str, Any]:
    """A row: mean and 95 % CI over episodes of each metric, pooled and per partner.

    ``tom_regret_per_step`` is ΔToM/T under ``tom_response`` (named in the row's ``tom_response``);
    ``tom_regret_per_step_stage``, ``..._reciprocal`` and ``..._action_value`` are there for every
    response (None where it does not apply: action values of black-box partners)."""
    check_tom_response(tom_response)
    eps = [r["episode"] for r in records]
    row: dict[str, Any] = {"game": cell.game, "partners": cell.partners, "policy": cell.policy, "episodes": len(eps),
                           "horizon": cell.horizon, "cell_key": cell.key, "tom_response": tom_response}
    row.update(_metrics(eps, tom_response))
    row["return"], row["return_ci"] = mean_ci95([e["return"] for e in eps])
    per_partner: dict[str, dict[str, Any]] = {}
    for name in sorted({e["partner"] for e in eps}):
        sub = [e for e in eps if e["partner"] == name]
        per_partner[name] = {"episodes": len(sub), **_metrics(sub, tom_response)}
    row["per_partner"] = per_partner
    return row


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
                 lockstep: int | None = None,
                 tom_response: str = DEFAULT_TOM_RESPONSE) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """004's prompting strategies on every cell, all episodes of a cell in lockstep by default.

    ``backend_id`` (backend kind, model, base URL -- never an API key) goes into the cell keys, so
    results of different models never mix and reruns resume.
    """
    from policies.llm import STRATEGIES, make_llm_policy

    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise RunnerError(f"unknown strategies {unknown}; choose from {', '.join(STRATEGIES)}")
    seeds = list(range(seed, seed + episodes))
    rows, records = [], {}
    for game in games:
        for pop in partners:
            for strategy in strategies:
                params = {**backend_id, "strategy": strategy, "label_set": label_set, "max_resamples": max_resamples,
                          "fallback": fallback, "seed": seed}
                env_kwargs = {"expose_partner_action": True} if strategy.startswith("oracle") else {}
                cell = Cell(game, pop, f"llm:{strategy}", horizon, params, env_kwargs)

                def factory(strategy: str = strategy, game: str = game) -> BasePolicy:
                    return make_llm_policy(strategy, backend, game, label_set=label_set, horizon=horizon, seed=seed,
                                           max_resamples=max_resamples, fallback=fallback)

                recs = run_cell(cell, seeds, out, progress, factory=factory, lockstep=lockstep or episodes)
                records[(game, pop, cell.policy)] = recs
                rows.append(summarise(cell, recs, tom_response))
    return rows, records


# ---------------------------------------------------------------------- output


def _cell(m: float | None, ci: float | None, digits: int) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict], published: bool = False) -> str:
    """004's Table 4 layout; with ``published``, 004's Tabular values and the target checks beside.

    The ΔToM/T column is each row's ``tom_regret_per_step``; the line under the table names its
    response (the rows' ``tom_response``)."""
    head = f"{'policy':<8} {'game':<4} {'partners':<14} {'ΔFunctional/T':>16} {'ΔToM/T':>16} {'ToM %':>13}"
    if published:
        head += f"  {'004 ΔF/T':>8} {'004 ΔToM':>8} {'004 ToM%':>8}  target  ΔToM±0.03"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (f"{r['policy']:<8} {r['game']:<4} {r['partners']:<14} {_cell(r['regret_per_step'], r['regret_per_step_ci'], 3):>16} "
                f"{_cell(r['tom_regret_per_step'], r['tom_regret_per_step_ci'], 3):>16} "
                f"{_cell(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>13}")
        pub = PUBLISHED_TABULAR.get((r["game"], r["partners"]))
        if published and pub is not None:
            line += (f"  {pub[0]:>8.3f} {pub[1]:>8.3f} {pub[2]:>8.1f}  {'met' if meets_target(r) else 'MISSED':<6}  "
                     f"{'met' if tom_regret_close(r) else 'MISSED'}")
        lines.append(line)
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
                                        "episodes for llm)")
    llm.add_argument("--strategies", type=comma_list(name="strategy"), default="lm,qa,cot",
                     help="comma-separated prompting strategies of 004 (policies.llm.STRATEGIES)")
    llm.add_argument("--label-set", choices=LABEL_SETS,
                     default="neutral", help="the action labels the LLM reads")
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
                                         tom_response=args.tom_response)
        finally:
            backend.close()
    else:
        executor = None
        if args.executor == "ray":
            from benchmarks.distributed import RayExecutor

            executor = RayExecutor(args.ray_address, args.ray_num_cpus, args.ray_chunk)
        rows, records = evaluate(split_list(args.games), split_list(args.partners), policies, args.episodes, args.seed,
                                 args.horizon, Path(args.out), progress, args.lockstep or 1, executor,
                                 tom_response=args.tom_response)
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
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
