"""``python -m benchmarks negotiation``: 002's Table 1 with scripted parties and mediators.

::

    python -m benchmarks negotiation --mediator none,generic,social --mode easy,medium,hard \\
        --scenarios all --runs 5 [--format json] [--plot DIR] [--out results/] \\
        [--attitudes stated|keyword|llm] [--mi-judge rule-based|llm] \\
        [--backend vllm|openai --model M --base-url URL --fallback raise|random]   # LLM parts

Columns follow Table 1: Easy (accommodating, avoiding), Medium (general), Hard (competing), each
with the chosen mediators; rows are CC (%), TLE (%), RL (turns, not seconds: the scripted runs
have no clock), ME (%) and MI (1-5, from the rule-based judge for scripted runs). Each cell is the
mean over scenarios x runs, with a 95 % CI. Every finished episode is appended to a JSONL file
under ``--out/negotiation/`` at once, keyed by its cell, scenario and seed, so reruns resume.

``--attitudes`` sets where consensus tracking takes the parties' attitudes from: ``stated`` (the
scripted parties' exact stances, default), ``keyword`` (the rule-based extractor reading every
line) or ``llm`` (the LLM attitude extractor on ``--backend/--model`` reading every line). With an
extractor, each row also reports ``extraction_agreement``: the share of lines whose extracted
option on the line's topic equals the stance the party actually took. ``--mi-judge llm`` scores
interventions with the LLM judge instead of the rule-based one. Every LLM part (mediator,
extractor, judge) is reseeded per episode; its decisions, parse failures and random fallbacks
are stored with the episode and summed per row (``llm_decisions``, ``llm_fallbacks``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any, Sequence

from benchmarks.records import append_record, read_records
from benchmarks.stats import mean_ci95
from policies.base import BasePolicy
from policies.negotiation import MEDIATORS, make_mediator
from tom_envs.negotiation.env import NegotiationEnv
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, DIFFICULTY_MODES, resolve_scenario

#: Bump when the meaning of a recorded episode changes (new result files).
RESULTS_VERSION = 1
ROWS = (("cc", "CC ↑", "%"), ("tle", "TLE ↑", "%"), ("rl", "RL ↓", "turns"), ("me", "ME ↑", "%"), ("mi", "MI ↑", ""))
MEDIATOR_ONLY = ("rl", "me", "mi")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    parser.add_argument("--mediator", default="none,generic,social",
                        help=f"comma-separated: {', '.join(MEDIATORS)}, or the LLM mediators {', '.join(LLM_MEDIATORS)}")
    parser.add_argument("--mode", default="easy,medium,hard", help="comma-separated difficulty levels: easy, medium, hard")
    parser.add_argument("--scenarios", default="all", help=f"'all' or comma-separated names ({', '.join(BUILTIN_SCENARIOS)}) or scenario file paths")
    parser.add_argument("--runs", type=int, default=5, help="runs per scenario (run r uses seed + r)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results", help="folder of the episode records (resumable)")
    parser.add_argument("--plot", metavar="DIR", help="write consensus trajectories per topic (002 Figure 2)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    llm = parser.add_argument_group("LLM mediators (--mediator llm-generic,llm-social)")
    llm.add_argument("--backend", choices=["vllm", "openai"], default="vllm")
    llm.add_argument("--model", help="vllm: a local model folder; openai: the served model name")
    llm.add_argument("--base-url", help="openai: the server's base URL (key from OPENAI_API_KEY)")
    llm.add_argument("--max-model-len", type=int, help="vllm: context length (transcripts grow with the turns)")
    llm.add_argument("--fallback", choices=["raise", "random"], default="raise",
                     help="after the bounded re-asks: raise, or a flagged random decision")
    parser.add_argument("--mi-judge", choices=MI_JUDGES, default="rule-based",
                        help="who scores interventions: the rule-based judge, or the LLM judge on --backend/--model")
    parser.add_argument("--attitudes", choices=ATTITUDES, default="stated",
                        help="consensus from the stated stances (exact), or from every line read by the keyword "
                             "or the LLM attitude extractor (LLM: needs --backend/--model)")


LLM_MEDIATORS = ("llm-generic", "llm-social")
ATTITUDES = ("stated", "keyword", "llm")
MI_JUDGES = ("rule-based", "llm")


def _split(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the table (or JSON rows) and returns the exit status."""
    mediators = _split(args.mediator)
    bad = [m for m in mediators if m not in MEDIATORS and m not in LLM_MEDIATORS]
    if bad:
        raise NegotiationConfigError(f"unknown --mediator {bad}; choose from {', '.join(MEDIATORS)}, {', '.join(LLM_MEDIATORS)}")
    levels = _split(args.mode)
    bad = [m for m in levels if m not in DIFFICULTY_MODES]
    if bad:
        raise NegotiationConfigError(f"unknown --mode {bad}; choose from {', '.join(DIFFICULTY_MODES)}")
    scenarios = list(BUILTIN_SCENARIOS) if args.scenarios.strip() == "all" else _split(args.scenarios)
    if args.runs < 1:
        raise NegotiationConfigError(f"--runs must be at least 1, got {args.runs}")
    backend = factory = extractor = judge = None
    ident: dict[str, Any] = {}
    if any(m in LLM_MEDIATORS for m in mediators) or args.attitudes == "llm" or args.mi_judge == "llm":
        from benchmarks.matrix import build_backend

        backend = build_backend(args.backend, args.model, args.base_url, args.seed,
                                max_model_len=args.max_model_len)
        factory = llm_mediator_factory(backend, args.fallback)
        extractor = llm_extractor_factory(backend, args.fallback)
        judge = llm_judge_factory(backend, args.fallback)
        ident = {"backend": args.backend, "model": args.model, "base_url": args.base_url, "fallback": args.fallback}
    try:
        rows, records = evaluate(levels, mediators, scenarios, args.runs, args.seed, Path(args.out), factory, ident,
                                 attitudes=args.attitudes, extractor_factory=extractor, mi_judge=args.mi_judge,
                                 judge_factory=judge)
    finally:
        if backend is not None:
            backend.close()
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
    if args.plot:
        for path in plot(records, Path(args.plot)):
            if args.format != "json":
                print(f"wrote {path}")
    return 0


# ---------------------------------------------------------------------- running
def llm_mediator_factory(backend: Any, fallback: str = "raise") -> Any:
    """Builds ``llm-generic`` / ``llm-social`` mediators on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMMediator

    def factory(name: str, scenario: Any) -> BasePolicy:
        return LLMMediator(backend, scenario, variant=name.split("-", 1)[1], fallback=fallback)

    return factory


def llm_extractor_factory(backend: Any, fallback: str = "raise") -> Any:
    """Builds the LLM attitude extractor on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMAttitudeExtractor

    def factory(scenario: Any) -> Any:
        return LLMAttitudeExtractor(backend, scenario, fallback=fallback)

    return factory


def llm_judge_factory(backend: Any, fallback: str = "raise") -> Any:
    """Builds the LLM mediator-intelligence judge on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMMIJudge

    def factory(scenario: Any) -> Any:
        return LLMMIJudge(backend, scenario, fallback=fallback)

    return factory


def cell_path(out: Path, conflict_mode: str, mediator: str, ident: dict[str, Any] | None = None,
              attitudes: str = "stated", mi_judge: str = "rule-based") -> Path:
    config: dict[str, Any] = {"version": RESULTS_VERSION, "conflict_mode": conflict_mode, "mediator": mediator}
    if ident and (mediator in LLM_MEDIATORS or attitudes == "llm" or mi_judge == "llm"):
        config["llm"] = ident  # which model decided, read or judged: results of different models never mix
    if attitudes != "stated":
        config["attitudes"] = attitudes
    if mi_judge != "rule-based":
        config["mi_judge"] = mi_judge
    key = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:12]
    return out / "negotiation" / f"{conflict_mode}_{mediator}_{key}.jsonl"


def load_records(path: Path) -> dict[tuple[str, int], dict]:
    """Records by (scenario, seed) (see :func:`benchmarks.records.read_records`); never raises."""
    return read_records(path, lambda rec: (rec["scenario"], int(rec["seed"])), lambda rec: rec["episode"]["cc"])


def play_episode(env: NegotiationEnv, mediator: Any, seed: int) -> dict[str, Any]:
    """One episode with scripted parties and ``mediator`` in the mediator seat; the summary."""
    mediator.reset(seed)
    env.reset(seed=seed)
    info: dict[str, Any] = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else mediator.act(obs, info))
    return info["episode"]


def evaluate(levels: Sequence[str], mediators: Sequence[str], scenarios: Sequence[str], runs: int, seed: int,
             out: Path, llm_factory: Any = None, ident: dict[str, Any] | None = None, attitudes: str = "stated",
             extractor_factory: Any = None, mi_judge: str = "rule-based", judge_factory: Any = None,
             ) -> tuple[list[dict], dict[tuple[str, str], list[dict]]]:
    """Run (or resume) the grid; returns Table 1 rows and the records per (conflict mode, mediator).

    ``llm_factory(name, scenario)`` builds the LLM mediators (see :func:`llm_mediator_factory`);
    ``ident`` (backend, model) goes into their result keys. ``attitudes`` is ``"stated"``,
    ``"keyword"`` or ``"llm"`` (then ``extractor_factory(scenario)`` builds the extractor, see
    :func:`llm_extractor_factory`); extractors read every party line (``extract_from="all"``).
    ``mi_judge`` is ``"rule-based"`` or ``"llm"`` (``judge_factory(scenario)``, see
    :func:`llm_judge_factory`). LLM components are reseeded with each episode's seed, and their
    counters (calls, parse failures, fallbacks) are stored in the episode's record.
    """
    if attitudes not in ATTITUDES:
        raise NegotiationConfigError(f"unknown attitudes {attitudes!r}; choose from {', '.join(ATTITUDES)}")
    if attitudes == "llm" and extractor_factory is None:
        raise NegotiationConfigError("attitudes 'llm' needs an LLM backend (--backend/--model)")
    if mi_judge not in MI_JUDGES:
        raise NegotiationConfigError(f"unknown MI judge {mi_judge!r}; choose from {', '.join(MI_JUDGES)}")
    if mi_judge == "llm" and judge_factory is None:
        raise NegotiationConfigError("MI judge 'llm' needs an LLM backend (--backend/--model)")
    specs = [resolve_scenario(s) for s in scenarios]
    rows, records = [], {}
    for level in levels:
        for mode in DIFFICULTY_MODES[level]:
            for med in mediators:
                if med in LLM_MEDIATORS and llm_factory is None:
                    raise NegotiationConfigError(f"mediator {med!r} needs an LLM backend (--backend/--model)")
                path = cell_path(out, mode, med, ident, attitudes, mi_judge)
                done = load_records(path)
                recs = []
                for sc_name, sc in zip(scenarios, specs):
                    env = None
                    parts: dict[str, Any] = {}
                    for r in range(runs):
                        key = (sc_name, seed + r)
                        if key not in done:
                            if env is None:
                                parts = _components(attitudes, mi_judge, sc, extractor_factory, judge_factory)
                                env = NegotiationEnv(scenario=sc, conflict_mode=mode, **parts)
                                if hasattr(parts.get("mi_judge"), "bind"):
                                    parts["mi_judge"].bind(env)
                            for part in parts.values():
                                if hasattr(part, "reset"):
                                    part.reset(seed + r)
                            mediator = llm_factory(med, sc) if med in LLM_MEDIATORS else make_mediator(med)
                            ep = play_episode(env, mediator, seed + r)
                            rec = {"scenario": sc_name, "seed": seed + r, "conflict_mode": mode, "mediator": med,
                                   "version": RESULTS_VERSION, "episode": ep}
                            counters = {name: dict(part.stats) for name, part in
                                        [("mediator", mediator), ("extractor", parts.get("attitude_extractor")),
                                         ("mi_judge", parts.get("mi_judge"))]
                                        if isinstance(getattr(part, "stats", None), dict)}
                            if counters:
                                rec["llm_stats"] = counters
                            append_record(path, rec)
                            done[key] = rec
                        recs.append(done[key])
                records[(mode, med)] = recs
                rows.append(summarise(level, mode, med, recs))
    return rows, records


def _components(attitudes: str, mi_judge: str, scenario: Any, extractor_factory: Any,
                judge_factory: Any) -> dict[str, Any]:
    """The env's keyword arguments for the attitude source and the MI judge."""
    from tom_envs.negotiation.consensus import KeywordAttitudeExtractor

    out: dict[str, Any] = {}
    if attitudes != "stated":
        out["attitude_extractor"] = (KeywordAttitudeExtractor(scenario) if attitudes == "keyword"
                                     else extractor_factory(scenario))
        out["extract_from"] = "all"
    if mi_judge == "llm":
        out["mi_judge"] = judge_factory(scenario)
    return out


def summarise(level: str, mode: str, mediator: str, records: Sequence[dict]) -> dict[str, Any]:
    """One Table 1 cell: means and 95 % CIs (percent for CC, TLE, ME; turns for RL)."""
    eps = [r["episode"] for r in records]
    row: dict[str, Any] = {"difficulty": level, "conflict_mode": mode, "mediator": mediator, "episodes": len(eps)}
    series = {"cc": [100 * e["cc"] for e in eps],
              "tle": [None if e["tle_mean"] is None else 100 * e["tle_mean"] for e in eps],
              "rl": [e["rl_mean"] for e in eps],
              "me": [None if e["me_mean"] is None else 100 * e["me_mean"] for e in eps],
              "mi": [e["mi_mean"] for e in eps]}
    for key, values in series.items():
        if mediator == "none" and key in MEDIATOR_ONLY:
            row[key], row[key + "_ci"] = None, None
        else:
            row[key], row[key + "_ci"] = mean_ci95(values)
    row["drop_events"] = sum(len(e["drop_events"]) for e in eps)
    row["rl_unanswered"] = sum(e["rl_unanswered"] for e in eps)
    row["interventions"] = sum(len(e["interventions"]) for e in eps) / max(1, len(eps))
    row["mi_judge"] = None if mediator == "none" else (eps[0]["mi_judge"] if eps else None)
    audits = [e.get("extraction") for e in eps if e.get("extraction")]
    row["attitudes"] = eps[0].get("attitude_source", "stated") if eps else None
    lines = sum(a["lines"] for a in audits)
    row["extraction_agreement"] = sum(a["agree"] for a in audits) / lines if lines else None
    stats = [s for r in records for s in r.get("llm_stats", {}).values()]
    row["llm_decisions"] = sum(s["decisions"] for s in stats) if stats else None
    row["llm_fallbacks"] = sum(s["fallbacks"] for s in stats) if stats else None
    return row


# ---------------------------------------------------------------------- output
def format_table(rows: Sequence[dict]) -> str:
    """002 Table 1's layout: one column per (conflict mode, mediator), one row per metric."""
    heads = [f"{r['conflict_mode'][:5]}/{r['mediator']}" for r in rows]
    width = max([13] + [len(h) for h in heads]) + 1
    lines = ["metric     " + "".join(f"{h:>{width}}" for h in heads)]
    lines.append("difficulty " + "".join(f"{r['difficulty']:>{width}}" for r in rows))
    lines.append("-" * len(lines[0]))
    for key, label, unit in ROWS:
        cells = []
        for r in rows:
            v = r[key]
            cells.append("-" if v is None else (f"{v:.3f}" if key == "mi" else f"{v:.2f}{'%' if unit == '%' else ''}"))
        lines.append(f"{label:<11}" + "".join(f"{c:>{width}}" for c in cells))
    n = rows[0]["episodes"] if rows else 0
    lines.append(f"\nEach cell: mean over {n} episodes (scenarios x runs). RL in turns after a drop event "
                 "(unanswered drops excluded; see rl_unanswered in --format json).")
    judges = sorted({r["mi_judge"] for r in rows if r.get("mi_judge")})
    if judges:
        lines.append(f"MI judge: {', '.join(judges)}.")
    fallbacks = [r for r in rows if r.get("llm_decisions")]
    if fallbacks:
        lines.append("LLM decisions (mediators, extractor, judge): " + ", ".join(
            f"{r['conflict_mode'][:5]}/{r['mediator']} {r['llm_fallbacks']}/{r['llm_decisions']} random fallbacks"
            for r in fallbacks) + ".")
    read = [r for r in rows if r.get("extraction_agreement") is not None]
    if read:
        agree = sum(r["extraction_agreement"] for r in read) / len(read)
        lines.append(f"Attitudes read from every line by an extractor ({read[0]['attitudes']}); mean agreement with "
                     f"the stances taken: {100 * agree:.1f}%.")
    return "\n".join(lines)


def plot(records: dict[tuple[str, str], list[dict]], out_dir: Path) -> list[Path]:
    """One PNG per (conflict mode, mediator, scenario): the first run's topic consensus over the
    turns, with the mediator's interventions as vertical lines (002 Figure 2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for (mode, med), recs in records.items():
        seen = set()
        for rec in recs:
            if rec["scenario"] in seen:
                continue
            seen.add(rec["scenario"])
            ep = rec["episode"]
            fig, ax = plt.subplots(figsize=(7, 3.5))
            for topic, series in ep["topic_consensus"].items():
                ax.plot(range(len(series)), series, label=topic)
            for t in ep["mediator_turns"]:
                ax.axvline(t, color="gray", alpha=0.5, linewidth=1)
            ax.set_xlabel("turn")
            ax.set_ylabel("agreement")
            ax.set_ylim(0, 1.02)
            ax.set_title(f"{Path(rec['scenario']).stem} - {mode} - {med} (seed {rec['seed']})")
            ax.legend(fontsize=6, loc="lower right")
            fig.tight_layout()
            path = out_dir / f"negotiation_{Path(rec['scenario']).stem}_{mode}_{med}.png"
            fig.savefig(path, dpi=90)
            plt.close(fig)
            paths.append(path)
    return paths
