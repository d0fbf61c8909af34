"""``python -m benchmarks matrix``: evaluate policies on (game, partner population) cells.

Every finished episode is appended to a JSONL file under ``--out`` as soon as it ends, keyed
by a hash of the cell's configuration and the episode seed, so a rerun of the same command
skips what is already recorded and a killed run loses at most the episode in flight.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import gymnasium as gym

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.records import ResultsFileWarning, append_record, read_records  # noqa: F401  (re-exported)
from benchmarks.stats import mean_ci95
from policies import BasePolicy, OracleBestResponsePolicy, RandomPolicy, TabularRMaxPolicy
from tom_envs.errors import TomEnvsError
from wrappers import ToMRecorder

#: Bump when the meaning of a recorded episode changes (invalidates old result files).
RESULTS_VERSION = 1

#: Policies the runner knows by name: factory(game, horizon) -> policy.
POLICIES: dict[str, Callable[[str, int], BasePolicy]] = {
    "tabular": lambda game, horizon: TabularRMaxPolicy(game, horizon=horizon),
    "random": lambda game, horizon: RandomPolicy(game),
    "oracle": lambda game, horizon: OracleBestResponsePolicy(),
}

#: 004's Table 4 (Tabular rows): (ΔFunctional/T, ΔToM/T, ToM %).
PUBLISHED_TABULAR: dict[tuple[str, str], tuple[float, float, float]] = {
    ("RPS", "single_action"): (0.083, 0.039, 97.4),
    ("RPS", "tit_for_tat"): (0.224, 0.105, 93.0),
    ("IBS", "single_action"): (0.211, 0.088, 98.7),
    ("IBS", "tit_for_tat"): (0.468, 0.162, 98.1),
    ("IPD", "single_action"): (0.086, 0.071, 98.6),
    ("IPD", "tit_for_tat"): (0.248, 0.070, 98.0),
}

METRICS = ("regret_per_step", "tom_regret_per_step", "tom_accuracy")


class RunnerError(TomEnvsError, ValueError):
    """Bad arguments to the evaluation runner."""


@dataclass(frozen=True)
class Cell:
    """One (game, partner population, policy) cell of the evaluation grid."""

    game: str
    partners: str
    policy: str
    horizon: int = 100
    policy_params: dict[str, Any] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def env_id(self) -> str:
        return self.game if self.game.startswith("tom/") else f"tom/{self.game}-v0"

    def config(self) -> dict[str, Any]:
        config = {"version": RESULTS_VERSION, "env_id": self.env_id, **asdict(self)}
        if not self.env_kwargs:  # keeps the keys of results recorded before env_kwargs existed
            del config["env_kwargs"]
        return config

    @property
    def key(self) -> str:
        blob = json.dumps(self.config(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def path(self, out: Path) -> Path:
        slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{self.game}_{self.partners}_{self.policy}")
        return out / "matrix" / f"{slug}_{self.key}.jsonl"


def make_cell(game: str, partners: str, policy: str, horizon: int) -> Cell:
    if policy not in POLICIES:
        raise RunnerError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    params = getattr(POLICIES[policy](game, horizon), "hyperparameters", {})
    return Cell(game, partners, policy, horizon, dict(params))


# ---------------------------------------------------------------------- results files


def load_records(path: Path) -> dict[int, dict]:
    """Episode records by seed (see :func:`benchmarks.records.read_records`); never raises."""
    return read_records(path, lambda rec: int(rec["seed"]), lambda rec: rec["episode"]["regret_per_step"])


# ---------------------------------------------------------------------- running


def run_episode(env: ToMRecorder, policy: BasePolicy, seed: int) -> dict[str, Any]:
    """One episode: the policy predicts, acts and observes every round; the recorder scores."""
    policy.reset(seed)
    obs, info = env.reset(seed=seed)
    while True:
        env.record_prediction(policy.predict(obs, info))
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
        policy.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated:
            return info["tom"]["episode"]


def run_lockstep(envs: Sequence[ToMRecorder], policy: BasePolicy, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Episodes in lockstep: every round, one ``predict_batch`` and one ``act_batch`` call serve all
    live episodes (an LLM policy turns each into one backend call). Returns per episode the
    recorder's summary plus ``steps``: the policy's per-round log, if it keeps one
    (``last_step_log()``: prompts, replies, parse failures, decisions per backend call), and
    ``policy_stats`` (``episode_stats()``: e.g. parse failures and fallbacks of the episode)."""
    policy.reset_batch(list(seeds))
    obs, infos = map(list, zip(*(env.reset(seed=s) for env, s in zip(envs, seeds))))
    live = list(range(len(envs)))
    logs: list[list[dict]] = [[] for _ in envs]
    summaries: list[dict[str, Any] | None] = [None] * len(envs)
    step_log = getattr(policy, "last_step_log", None)
    while live:
        predictions = policy.predict_batch(obs, infos)
        pred_log = step_log() if step_log else None
        actions = policy.act_batch(obs, infos)
        act_log = step_log() if step_log else None
        results = []
        for k, i in enumerate(live):
            envs[i].record_prediction(predictions[k])
            results.append(envs[i].step(actions[k]))
            if step_log:
                logs[i].append({"predict": pred_log[k] if pred_log else None, "act": act_log[k] if act_log else None})
        new_obs, rewards, terms, truncs, new_infos = map(list, zip(*results))
        policy.observe_batch(new_obs, rewards, terms, truncs, new_infos)
        if any(terms[k] or truncs[k] for k in range(len(live))) and not all(terms[k] or truncs[k] for k in range(len(live))):
            raise RunnerError("episodes of one lockstep batch ended at different rounds; lockstep needs a common horizon")
        if terms[0] or truncs[0]:
            for k, i in enumerate(live):
                summaries[i] = new_infos[k]["tom"]["episode"]
            live = []
        obs, infos = new_obs, new_infos
    stats = getattr(policy, "episode_stats", None)
    if stats is not None:  # e.g. an LLM policy's parse failures and fallbacks per episode
        for summary, slot_stats in zip(summaries, stats()):
            summary["policy_stats"] = slot_stats
    return [dict(summary, steps=log) if step_log else summary for summary, log in zip(summaries, logs)]


def run_cell(cell: Cell, seeds: Sequence[int], out: Path, progress: bool = False,
             factory: Callable[[], BasePolicy] | None = None, lockstep: int = 1) -> list[dict]:
    """Episode records of ``cell`` for ``seeds``, running only those not yet in its results file.

    ``factory`` builds the policy when it is not one of :data:`POLICIES` (e.g. a trained SB3
    model or an LLM strategy); put whatever identifies it (a model hash) in ``cell.policy_params``.
    ``lockstep`` > 1 runs that many episodes at once through the policy's batched forms (each
    finished batch is written at once, so a killed run loses at most the batch in flight);
    1 runs episode by episode, each written the moment it ends.
    """
    path = cell.path(out)
    done = load_records(path)
    todo = [s for s in seeds if s not in done]
    if todo:
        bar = _progress(len(todo), f"{cell.policy} {cell.game} {cell.partners}", progress)
        for record in cell_records(cell, todo, factory, lockstep):
            append_record(path, record)
            done[record["seed"]] = record
            bar.update(1)
        bar.close()
    return [done[s] for s in seeds]


def cell_records(cell: Cell, seeds: Sequence[int], factory: Callable[[], BasePolicy] | None = None,
                 lockstep: int = 1) -> Iterator[dict]:
    """The episode records of ``cell`` for ``seeds``, yielded as they finish (nothing written).

    What :func:`run_cell` writes, and what a Ray task of the distributed runner returns.
    """
    if not seeds:
        return
    policy = factory() if factory is not None else POLICIES[cell.policy](cell.game, cell.horizon)
    size = max(1, int(lockstep))
    envs = [ToMRecorder(gym.make(cell.env_id, partners=cell.partners, horizon=cell.horizon, **cell.env_kwargs))
            for _ in range(min(size, len(seeds)))]
    for start in range(0, len(seeds), size):
        batch = list(seeds[start : start + size])
        if size == 1:
            episodes = [run_episode(envs[0], policy, batch[0])]
        else:
            episodes = run_lockstep(envs[: len(batch)], policy, batch)
        for seed, episode in zip(batch, episodes):
            steps = episode.pop("steps", None)
            record = {"key": f"{cell.key}:{seed}", "cell": cell.config(), "seed": seed,
                      "partner": episode["partner"], "episode": episode}
            if steps is not None:
                record["steps"] = steps
            yield record


def _progress(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, leave=False, file=sys.stderr)


def summarise(cell: Cell, records: Sequence[dict]) -> dict[str, Any]:
    """A row: mean and 95 % CI over episodes of each metric, pooled and per partner."""
    eps = [r["episode"] for r in records]
    row: dict[str, Any] = {"game": cell.game, "partners": cell.partners, "policy": cell.policy, "episodes": len(eps),
                           "horizon": cell.horizon, "cell_key": cell.key}
    for key in METRICS:
        row[key], row[key + "_ci"] = mean_ci95([e[key] for e in eps])
    row["return"], row["return_ci"] = mean_ci95([e["return"] for e in eps])
    per_partner: dict[str, dict[str, Any]] = {}
    for name in sorted({e["partner"] for e in eps}):
        sub = [e for e in eps if e["partner"] == name]
        entry: dict[str, Any] = {"episodes": len(sub)}
        for key in METRICS:
            entry[key], entry[key + "_ci"] = mean_ci95([e[key] for e in sub])
        per_partner[name] = entry
    row["per_partner"] = per_partner
    return row


def evaluate(games: Iterable[str], partners: Iterable[str], policies: Iterable[str], episodes: int, seed: int,
             horizon: int, out: Path, progress: bool = False, lockstep: int = 1,
             executor: Any = None) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """Run (or resume) the whole grid; returns the rows and the records per cell.

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
        rows.append(summarise(cell, recs))
    return rows, records


def build_backend(kind: str, model: str, base_url: str | None = None, seed: int = 0, tokenizer: str | None = None,
                  max_model_len: int | None = None) -> Any:
    """The LLM backend named on the command line (``vllm`` in-process or an ``openai`` server)."""

    from policies.llm import OpenAIBackend, VLLMBackend

    # vLLM logs to stdout by default; the CLI's stdout is for the table / JSON only
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")

    if not model:
        raise RunnerError("an LLM backend needs --model (a local model folder for vllm, a served model name for openai)")
    if kind == "vllm":
        return VLLMBackend(model, seed=seed, **({"max_model_len": max_model_len} if max_model_len else {}))
    if kind == "openai":
        if not base_url:
            raise RunnerError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAIBackend(base_url, model, tokenizer=tokenizer)
    raise RunnerError(f"unknown --backend {kind!r}; choose vllm or openai")


def evaluate_llm(games: Iterable[str], partners: Iterable[str], strategies: Iterable[str], episodes: int, seed: int,
                 horizon: int, out: Path, backend: Any, backend_id: dict[str, Any], label_set: str = "neutral",
                 max_resamples: int = 10, fallback: str = "raise", progress: bool = False,
                 lockstep: int | None = None) -> tuple[list[dict], dict[tuple, list[dict]]]:
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
                rows.append(summarise(cell, recs))
    return rows, records


# ---------------------------------------------------------------------- output


def _cell(m: float | None, ci: float | None, digits: int) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict], published: bool = False) -> str:
    """004's Table 4 layout; with ``published``, 004's Tabular values and the target check beside."""
    head = f"{'policy':<8} {'game':<4} {'partners':<14} {'ΔFunctional/T':>16} {'ΔToM/T':>16} {'ToM %':>13}"
    if published:
        head += f"  {'004 ΔF/T':>8} {'004 ToM%':>8}  target"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (f"{r['policy']:<8} {r['game']:<4} {r['partners']:<14} {_cell(r['regret_per_step'], r['regret_per_step_ci'], 3):>16} "
                f"{_cell(r['tom_regret_per_step'], r['tom_regret_per_step_ci'], 3):>16} "
                f"{_cell(r['tom_accuracy'], r['tom_accuracy_ci'], 1):>13}")
        pub = PUBLISHED_TABULAR.get((r["game"], r["partners"]))
        if published and pub is not None:
            line += f"  {pub[0]:>8.3f} {pub[2]:>8.1f}  {'met' if meets_target(r) else 'MISSED'}"
        lines.append(line)
    return "\n".join(lines)


def meets_target(row: dict) -> bool:
    """Issue target: regret/T <= 1.5 x published + 0.03 and ToM % >= published - 3."""
    reg, _, tom = PUBLISHED_TABULAR[(row["game"], row["partners"])]
    return (row["regret_per_step"] is not None and row["regret_per_step"] <= 1.5 * reg + 0.03
            and row["tom_accuracy"] is not None and row["tom_accuracy"] >= tom - 3)


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
