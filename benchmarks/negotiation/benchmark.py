"""``python -m benchmarks negotiation``: 002's Table 1 with scripted parties and mediators.

::

    python -m benchmarks negotiation --policy none,blind,generic,social --mode easy,medium,hard \\
        --scenarios all --episodes 5 [--seed 0] [--format json] [--plot DIR] [--out results/] \\
        [--attitudes stated|keyword|llm] [--mi-judge rule-based|llm] \\
        [--backend vllm|openai --model M --base-url URL --fallback raise|random]   # LLM parts

Columns follow Table 1: Easy (accommodating, avoiding), Medium (general), Hard (competing), each
with the chosen mediators; rows are CC (%), TLE (%), RL (turns, not seconds: the scripted runs
have no clock), ME (%) and MI (1-5, from the rule-based judge for scripted runs). Each cell is the
mean over scenarios x runs, with a 95 % CI (002's GPT-4.1 values are printed below the table).
``--policy`` is also spelled ``--mediator`` and ``--episodes`` ``--runs``. Episodes are played
by the evaluation runner (:func:`benchmarks.runner.play_aec`); every finished episode is appended
to a JSONL file under ``--out/negotiation/`` at once (:mod:`benchmarks.results`), keyed by its
cell, scenario and seed, so reruns resume. The env is wrapped as the runner wraps it
(:func:`benchmarks.runner.make_env`: ``wrappers.AECToMRecorder``, then ``wrappers.AECTextObservation``);
the mediator's literal-ToM predictions (its ``predict``) go to the recorder, and each record's
``tom_accuracy`` (share of predicted cells right) and ``tom_predictions`` (cells predicted) are the
recorder's, read after the episode -- nothing of it reaches the mediator.

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
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarks.cli import add_llm_options, add_run_options, comma_list, progress_bar, split_list
from benchmarks.family import Benchmark, register
from benchmarks.results import RESULTS_VERSION, ResultsFile
from benchmarks.negotiation.parts import (LLMMediatorFactory, Parts, PartyTeam, format_movement, llm_extractor_factory,
                                          llm_judge_factory, llm_mediator_factory, llm_party_factory, movement)
from benchmarks.negotiation.table import METRICS, MEDIATOR_ONLY, PUBLISHED, ROWS, format_table, plot, summarise
from benchmarks.runner import Cell, env_id_for, make_env, play_aec, play_aec_lockstep
from policies.base import BasePolicy
from policies.negotiation.scripted import MEDIATORS as SCRIPTED_MEDIATORS
from policies.negotiation.scripted import make_mediator
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, DIFFICULTY_MODES, Scenario, resolve_scenario

LLM_MEDIATORS = ("llm-generic", "llm-social", "llm-social-paper")
#: LLM mediators that play several episodes in lockstep (--lockstep)
LOCKSTEP_MEDIATORS = ("llm-generic", "llm-social")
ATTITUDES = ("stated", "keyword", "llm")
MI_JUDGES = ("rule-based", "llm")
PARTIES = ("scripted", "llm", "llm-inner-thoughts")
BUDGETS = ("paper", "release")


def default_budget(parties: str, budget: str | None = None) -> str:
    """``budget``, else the default for ``parties``: ``paper`` with scripted parties, ``release`` with LLM parties."""
    return budget or ("paper" if parties == "scripted" else "release")


def _scripted(name: str) -> Callable[[Scenario, LLMMediatorFactory | None], BasePolicy]:
    return lambda scenario, llm: make_mediator(name)


def _llm(name: str) -> Callable[[Scenario, LLMMediatorFactory | None], BasePolicy]:
    def factory(scenario: Scenario, llm: LLMMediatorFactory | None) -> BasePolicy:
        if llm is None:
            raise NegotiationConfigError(f"mediator {name!r} needs an LLM backend (--backend/--model)")
        return llm(name, scenario)

    return factory


#: The family's one name -> factory(scenario, LLM mediator factory or None) table of mediators.
POLICIES: dict[str, Callable[[Scenario, LLMMediatorFactory | None], BasePolicy]] = {
    **{name: _scripted(name) for name in SCRIPTED_MEDIATORS}, **{name: _llm(name) for name in LLM_MEDIATORS}}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    add_run_options(parser, episodes=5, episode_aliases=("--runs",),
                    episodes_help="runs per scenario and cell (run r uses seed + r)",
                    seed_help="run r of every scenario uses seed + r",
                    plot="write consensus trajectories per topic (002 Figure 2) into this folder")
    parser.add_argument("--policy", "--mediator", dest="mediator", default="none,blind,generic,social",
                        help=f"comma-separated mediators: {', '.join(SCRIPTED_MEDIATORS)}, or the LLM mediators "
                             f"{', '.join(LLM_MEDIATORS)}")
    parser.add_argument("--mode", default="easy,medium,hard",
                        help="comma-separated difficulty levels: easy, medium, hard")
    parser.add_argument("--scenarios", default="all",
                        help="'all' (the released ProMediate cases once downloaded, else our six), 'builtin', "
                             f"'release', or comma-separated names ({', '.join(BUILTIN_SCENARIOS)}) or scenario / "
                             "ProMediate case file paths (e.g. data/promediate/cases/hmo.json)")
    parser.add_argument("--metrics", choices=METRICS, default="release",
                        help="definitions of CC/TLE/RL/ME: the release's code (ProMediate-Eval scripts/evaluation.py; "
                             "default) or the paper's text (002 §3.3); every record holds both")
    parser.add_argument("--mi-judge", choices=MI_JUDGES, default="rule-based",
                        help="who scores interventions: the rule-based judge, or the LLM judge on --backend/--model")
    parser.add_argument("--parties", choices=PARTIES, default="scripted",
                        help="who plays the party seats: the env's scripted parties, or LLM parties on "
                             "--backend/--model: 'llm' follows the release's loop (memory and saliency, two "
                             "thoughts each, motivation with the case's thresholds, turn allocation, nobody twice "
                             "in a row; only the speaker's thought is put into words), 'llm-inner-thoughts' has "
                             "every party think, score and word a line each turn (all parties decide a turn in "
                             "one backend call per stage)")
    parser.add_argument("--budget", choices=BUDGETS, default=None,
                        help="turns per episode: 'paper' (2 x parties x topics, at least 20; default with scripted "
                             "parties) or 'release' (the release's loop: 4 x parties x topics; default with LLM parties)")
    parser.add_argument("--attitudes", choices=ATTITUDES, default="stated",
                        help="consensus from the stated stances (exact), or from every line read by the keyword "
                             "or the LLM attitude extractor (LLM: needs --backend/--model)")
    add_llm_options(parser, title="LLM parts (--mediator llm-*; --parties llm; --attitudes llm; --mi-judge llm)",
                    only=("backend", "model", "base_url", "max_model_len", "fallback", "lockstep", "scoring_path",
                          "engine_arg"), lockstep=1,
                    lockstep_help="episodes of one scenario played together by an LLM mediator (one backend call "
                                  "per stage for all of them; records equal those of a run one by one)",
                    max_model_len_help="vllm: context length (transcripts grow with the turns)")


def _names(text: str, flag: str, item: str, choices: Sequence[str] | None = None) -> list[str]:
    """The items of a comma-separated ``flag``: non-empty, no duplicates, each one of ``choices`` (if given)."""
    try:
        comma_list(choices, name=item)(text)
    except argparse.ArgumentTypeError as exc:
        raise NegotiationConfigError(f"{flag}: {exc}") from None
    return split_list(text)


def scenario_list(text: str) -> list[str]:
    """``--scenarios``: ``all`` (the six released cases when ``data download negotiation`` has put them
    in ``data/promediate/cases`` or ``$TOM_ENVS_PROMEDIATE_CASES``, else our six self-written ones),
    ``builtin`` (ours), ``release`` (the downloaded cases; an error if there are none), or names and
    scenario/ProMediate case file paths. Says on stderr which set ``all`` took."""
    from tom_envs.negotiation.download import DEFAULT_DEST, ENV_VAR, downloaded_cases

    choice = text.strip()
    if choice in ("all", "release"):
        cases = [str(p) for p in downloaded_cases()]
        if cases:
            print(f"scenarios: the {len(cases)} released ProMediate cases in {Path(cases[0]).parent}", file=sys.stderr)
            return cases
        if choice == "release":
            raise NegotiationConfigError(f"--scenarios release: no ProMediate cases in {DEFAULT_DEST} (or ${ENV_VAR}); "
                                         "fetch them with: python -m benchmarks data download negotiation")
        print("scenarios: our six self-written scenarios (run 'python -m benchmarks data download negotiation' "
              "to play the released cases)", file=sys.stderr)
        return list(BUILTIN_SCENARIOS)
    if choice == "builtin":
        return list(BUILTIN_SCENARIOS)
    return _names(text, "--scenarios", "scenario")


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the table (or JSON rows) and returns the exit status."""
    mediators = _names(args.mediator, "--mediator", "mediator", list(POLICIES))
    levels = _names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES))
    scenarios = scenario_list(args.scenarios)
    if args.episodes < 1:
        raise NegotiationConfigError(f"--runs must be at least 1, got {args.episodes}")
    backend = factory = extractor = judge = party_factory = None
    ident = _ident(args)
    if ident:
        from benchmarks.cli import backend_from_args

        backend = backend_from_args(args)
        factory = llm_mediator_factory(backend, args.fallback)
        extractor = llm_extractor_factory(backend, args.fallback)
        judge = llm_judge_factory(backend, args.fallback)
        party_factory = llm_party_factory(backend, args.fallback,
                                          "inner_thoughts" if args.parties == "llm-inner-thoughts" else "release")
    try:
        rows, records = evaluate(levels, mediators, scenarios, args.episodes, args.seed, Path(args.out), factory,
                                 ident, attitudes=args.attitudes, extractor_factory=extractor, mi_judge=args.mi_judge,
                                 judge_factory=judge, progress=None if args.format != "json" else False,
                                 parties=args.parties, party_factory=party_factory, budget=args.budget,
                                 lockstep=getattr(args, "lockstep", 1), metrics=getattr(args, "metrics", "release"))
    finally:
        if backend is not None:
            backend.close()
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
    moved = format_movement(rows) if args.format != "json" else ""
    if moved:
        print(moved)
    if args.format != "json" and args.parties != "scripted":
        loop = ("the release's loop: memory, two thoughts each, motivation with the case's thresholds, turn "
                "allocation, nobody twice in a row" if args.parties == "llm" else "inner thoughts, every party every turn")
        budget = default_budget(args.parties, args.budget)
        print(f"Parties: LLM ({loop}) on {args.backend} {args.model}; turns: {budget} budget "
              f"({'4' if budget == 'release' else '2'} x parties x topics).")
    written = plot(records, Path(args.plot)) if args.plot else []
    if written and args.format != "json":
        print("\n".join(f"wrote {path}" for path in written))
    return 0


# ---------------------------------------------------------------------- cells and episodes
@dataclass(frozen=True)
class NegotiationCell(Cell):
    """One Table 1 cell: a conflict mode (of a difficulty level) x a mediator, with the attitude
    source and MI judge; its results file holds every (scenario, seed) episode of the cell.

    ``llm`` (backend, model, base URL, fallback) is part of the key when an LLM decides, reads or
    judges, so results of different models never mix."""

    family: ClassVar[str] = "negotiation"
    difficulty: str
    conflict_mode: str
    mediator: str
    llm: Mapping[str, Any] | None = None  # who decides, reads or judges when an LLM does
    attitudes: str = "stated"
    mi_judge: str = "rule-based"
    parties: str = "scripted"
    budget: str = "paper"

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"version": RESULTS_VERSION, "conflict_mode": self.conflict_mode,
                                  "mediator": self.mediator}
        if self.llm and (self.mediator in LLM_MEDIATORS or self.attitudes == "llm" or self.mi_judge == "llm"
                         or self.parties != "scripted"):
            config["llm"] = dict(self.llm)
        if self.attitudes != "stated":
            config["attitudes"] = self.attitudes
        if self.mi_judge != "rule-based":
            config["mi_judge"] = self.mi_judge
        if self.parties != "scripted":
            config["parties"] = self.parties
        if self.budget != "paper":
            config["budget"] = self.budget
        return config

    def slug(self) -> str:
        return f"{self.conflict_mode}_{self.mediator}"

    def results(self, out: Path) -> ResultsFile:
        """Records by (scenario, seed)."""
        return ResultsFile(self.path(out), key=lambda rec: (rec["scenario"], int(rec["seed"])),
                           check=lambda rec: rec["episode"]["cc"])

    def make_env(self, scenario: Scenario, parts: dict[str, Any]) -> Any:
        """The registered env of this difficulty, in this conflict mode, on ``scenario``, wrapped as the runner
        wraps it (the ToM recorder scoring the mediator's predictions, out of band), in its text form
        (:class:`wrappers.AECTextObservation`: LLM seats read their text from the observation; the
        scripted mediators read ``info["state"]``)."""
        from wrappers import AECTextObservation

        return AECTextObservation(make_env(env_id_for("negotiation", "aec", difficulty=self.difficulty),
                                           scenario=scenario, conflict_mode=self.conflict_mode, **parts))


def cell_path(out: Path, conflict_mode: str, mediator: str, ident: dict[str, Any] | None = None,
              attitudes: str = "stated", mi_judge: str = "rule-based") -> Path:
    """The results file of a cell (see :class:`NegotiationCell`)."""
    level = next(lv for lv, modes in DIFFICULTY_MODES.items() if conflict_mode in modes)
    return NegotiationCell(level, conflict_mode, mediator, ident or None, attitudes, mi_judge).path(out)


def play_episode(env: Any, mediator: Any, seed: int, team: PartyTeam | None = None) -> dict[str, Any]:
    """One episode with ``mediator`` in the mediator seat and the env's scripted parties (or the LLM
    ``team`` in the party seats), played by the runner; the env's summary with the recorder's
    literal-ToM score (:func:`episode_record`)."""
    if team is None:
        return episode_record(env, play_aec(env, mediator, seed))
    from tom_envs.negotiation.env import MEDIATOR

    return episode_record(env, play_aec(env, {**team.seats(), MEDIATOR: mediator}, seed))


def episode_record(env: Any, result: Any) -> dict[str, Any]:
    """The env's episode summary (``result.info["episode"]``) with the mediator's literal-ToM score from
    the ToM recorder in ``env``'s wrapper chain, read after the episode: ``tom_accuracy`` (a share, of
    the cells predicted; None without predictions) and ``tom_predictions`` (cells predicted)."""
    from tom_envs.scoring import NOT_PREDICTED
    from wrappers import AECToMRecorder

    episode = dict(result.info["episode"])
    recorder = env
    while recorder is not None and not isinstance(recorder, AECToMRecorder):
        recorder = getattr(recorder, "env", None)
    cells = 0
    if recorder is not None:
        for rec in recorder.records:
            pred = rec.get("prediction")
            if pred is not None:
                cells += int((np.asarray(pred) != NOT_PREDICTED).sum())
    acc = result.summary.get("tom_accuracy") if recorder is not None else None
    episode["tom_accuracy"] = None if acc is None or not cells else float(acc) / 100.0
    episode["tom_predictions"] = cells
    return episode


def evaluate(levels: Sequence[str], mediators: Sequence[str], scenarios: Sequence[str], runs: int, seed: int,
             out: Path, llm_factory: LLMMediatorFactory | None = None, ident: dict[str, Any] | None = None,
             attitudes: str = "stated", extractor_factory: Any = None, mi_judge: str = "rule-based",
             judge_factory: Any = None, progress: bool | None = False, parties: str = "scripted",
             party_factory: Any = None, lockstep: int = 1, budget: str | None = None,
             metrics: str = "release") -> tuple[list[dict], dict[tuple[str, str], list[dict]]]:
    """Run (or resume) the grid; returns Table 1 rows and the records per (conflict mode, mediator).

    ``llm_factory(name, scenario)`` builds the LLM mediators (see :func:`llm_mediator_factory`);
    ``ident`` (backend, model) goes into their result keys. ``attitudes`` is ``"stated"``,
    ``"keyword"`` or ``"llm"`` (then ``extractor_factory(scenario)`` builds the extractor, see
    :func:`llm_extractor_factory`); extractors read every party line (``extract_from="all"``).
    ``mi_judge`` is ``"rule-based"`` or ``"llm"`` (``judge_factory(scenario)``, see
    :func:`llm_judge_factory`). ``parties`` is ``"scripted"`` or ``"llm"`` (then
    ``party_factory(scenario)`` builds each party, see :func:`llm_party_factory`, and a
    :class:`PartyTeam` plays every party seat). LLM components are reseeded with each episode's seed, and their
    counters (calls, parse failures, fallbacks) are stored in the episode's record. ``progress``:
    a bar per cell (None: on a terminal). ``lockstep`` > 1 plays up to that many episodes of a scenario
    together when an LLM mediator sits with scripted parties (:func:`benchmarks.runner.play_aec_lockstep`).
    ``metrics`` picks the definitions the rows use ("release" or "paper"; each record holds both).
    """
    if attitudes not in ATTITUDES:
        raise NegotiationConfigError(f"unknown attitudes {attitudes!r}; choose from {', '.join(ATTITUDES)}")
    if attitudes == "llm" and extractor_factory is None:
        raise NegotiationConfigError("attitudes 'llm' needs an LLM backend (--backend/--model)")
    if mi_judge not in MI_JUDGES:
        raise NegotiationConfigError(f"unknown MI judge {mi_judge!r}; choose from {', '.join(MI_JUDGES)}")
    if mi_judge == "llm" and judge_factory is None:
        raise NegotiationConfigError("MI judge 'llm' needs an LLM backend (--backend/--model)")
    if parties not in PARTIES:
        raise NegotiationConfigError(f"unknown parties {parties!r}; choose from {', '.join(PARTIES)}")
    if parties != "scripted" and party_factory is None:
        raise NegotiationConfigError(f"parties {parties!r} need an LLM backend (--backend/--model)")
    budget = default_budget(parties, budget)
    if budget not in BUDGETS:
        raise NegotiationConfigError(f"unknown budget {budget!r}; choose from {', '.join(BUDGETS)}")
    unknown = [m for m in mediators if m not in POLICIES]
    if unknown:
        raise NegotiationConfigError(f"unknown --mediator {unknown}; choose from {', '.join(POLICIES)}")
    specs = [resolve_scenario(s) for s in scenarios]
    parts_for = Parts(attitudes, mi_judge, extractor_factory, judge_factory,
                       party_factory if parties != "scripted" else None, budget)
    rows, records = [], {}
    for cell in grid(levels, mediators, ident, attitudes, mi_judge, parties, budget):
        if cell.mediator in LLM_MEDIATORS and llm_factory is None:
            raise NegotiationConfigError(f"mediator {cell.mediator!r} needs an LLM backend (--backend/--model)")
        recs = run_cell(cell, list(zip(scenarios, specs)), range(seed, seed + runs), out, parts_for, llm_factory,
                        progress, lockstep)
        records[(cell.conflict_mode, cell.mediator)] = recs
        rows.append(summarise(cell.difficulty, cell.conflict_mode, cell.mediator, recs, metrics))
        rows[-1].update(movement(recs))
    return rows, records


def grid(levels: Sequence[str], mediators: Sequence[str], ident: Mapping[str, Any] | None = None,
         attitudes: str = "stated", mi_judge: str = "rule-based", parties: str = "scripted",
         budget: str | None = None) -> list[NegotiationCell]:
    """Table 1's cells, in its column order: every conflict mode of ``levels`` x ``mediators``."""
    budget = default_budget(parties, budget)
    return [NegotiationCell(level, mode, med, ident or None, attitudes, mi_judge, parties, budget)
            for level in levels for mode in DIFFICULTY_MODES[level] for med in mediators]


def cells(args: argparse.Namespace) -> list[NegotiationCell]:
    """The cells the command line asks for (the declaration's ``cells``)."""
    return grid(_names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES)),
                _names(args.mediator, "--mediator", "mediator", list(POLICIES)), _ident(args), args.attitudes,
                args.mi_judge, args.parties, getattr(args, "budget", None))


def _ident(args: argparse.Namespace) -> dict[str, Any]:
    """Which LLM decides, reads or judges (none: empty)."""
    if not (any(m in LLM_MEDIATORS for m in split_list(args.mediator)) or args.attitudes == "llm"
            or args.mi_judge == "llm" or args.parties != "scripted"):
        return {}
    return {"backend": args.backend, "model": args.model, "base_url": args.base_url, "fallback": args.fallback}


def run_cell(cell: NegotiationCell, scenarios: Sequence[tuple[str, Scenario]], seeds: Sequence[int], out: Path,
             parts_for: Parts, llm_factory: LLMMediatorFactory | None = None,
             progress: bool | None = False, lockstep: int = 1) -> list[dict]:
    """Every (scenario, seed) record of ``cell``, playing (with :func:`benchmarks.runner.play_aec`, or
    :func:`~benchmarks.runner.play_aec_lockstep` for an LLM mediator with ``lockstep`` > 1 and scripted
    parties) only the episodes its results file lacks; each is appended the moment it ends."""
    batched = lockstep > 1 and cell.mediator in LOCKSTEP_MEDIATORS and parts_for.party_factory is None
    with cell.results(out) as results:
        todo = results.missing([(name, s) for name, _ in scenarios for s in seeds])
        bar = progress_bar(len(todo), cell.slug().replace("_", " "), progress) if todo else None
        try:
            for name, scenario in scenarios:
                mine = [s for n, s in todo if n == name]
                for batch in ([mine[i:i + lockstep] for i in range(0, len(mine), lockstep)] if batched else
                              [mine] if mine else []):
                    for rec in _play(cell, name, scenario, batch, parts_for, llm_factory, batched):
                        results.append(rec)
                        if bar is not None:
                            bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        return [results[(name, s)] for name, _ in scenarios for s in seeds]


def _play(cell: NegotiationCell, name: str, scenario: Scenario, seeds: Sequence[int], parts_for: Parts,
          llm_factory: LLMMediatorFactory | None, batched: bool) -> Iterator[dict]:
    """The records of episodes ``seeds`` on ``scenario``: one env reused episode after episode, or (batched)
    one env per episode played in lockstep by one mediator."""
    if batched:
        setups = [_setup(cell, scenario, parts_for, s) for s in seeds]
        mediator = POLICIES[cell.mediator](scenario, llm_factory)
        played = play_aec_lockstep([env for env, _ in setups], mediator, list(seeds))
        for s, (env, parts), result, stats in zip(seeds, setups, played, mediator.episode_stats()):
            yield _record(cell, name, s, episode_record(env, result), {"mediator": stats}, parts, None)
        return
    env, parts = _setup(cell, scenario, parts_for, None)
    team = parts_for.team(env, scenario)
    for s in seeds:
        for part in parts.values():
            if hasattr(part, "reset"):
                part.reset(s)
        mediator = POLICIES[cell.mediator](scenario, llm_factory)
        episode = play_episode(env, mediator, s, team)
        own = {"mediator": dict(mediator.stats)} if isinstance(getattr(mediator, "stats", None), dict) else {}
        yield _record(cell, name, s, episode, own, parts, team)


def _setup(cell: NegotiationCell, scenario: Scenario, parts_for: Parts, seed: int | None) -> tuple[Any, dict]:
    """An env of ``cell`` on ``scenario`` with its LLM parts (bound to it; reseeded when ``seed`` is given)."""
    parts = parts_for(scenario)
    env = cell.make_env(scenario, parts)
    if hasattr(parts.get("mi_judge"), "bind"):
        parts["mi_judge"].bind(env)
    if seed is not None:
        for part in parts.values():
            if hasattr(part, "reset"):
                part.reset(seed)
    return env, parts


def _record(cell: NegotiationCell, name: str, seed: int, episode: dict, counters: dict[str, dict],
            parts: dict[str, Any], team: PartyTeam | None) -> dict[str, Any]:
    """One episode's record; the LLM parts' counters (calls, parse failures, fallbacks) under ``llm_stats``."""
    rec = {"scenario": name, "seed": seed, "conflict_mode": cell.conflict_mode, "mediator": cell.mediator,
           "version": RESULTS_VERSION, "episode": episode}
    counters = {**counters, **{who: dict(part.stats) for who, part in
                               [("extractor", parts.get("attitude_extractor")), ("mi_judge", parts.get("mi_judge")),
                                ("parties", team)] if isinstance(getattr(part, "stats", None), dict)}}
    if counters:
        rec["llm_stats"] = counters
    if team is not None:
        rec["parties"] = cell.parties
    return rec


__all__ = ["ATTITUDES", "BENCHMARK", "BUDGETS", "LLM_MEDIATORS", "MEDIATOR_ONLY", "MI_JUDGES", "PARTIES", "POLICIES", "PUBLISHED",
           "ROWS", "NegotiationCell", "PartyTeam", "add_arguments", "cell_path", "cells", "evaluate", "format_table",
           "grid", "llm_extractor_factory", "llm_judge_factory", "llm_mediator_factory", "llm_party_factory",
           "episode_record", "play_episode", "plot", "run", "run_cell", "summarise"]

BENCHMARK = register(Benchmark(
    name="negotiation", family="negotiation",
    help="002 Table 1: scripted parties with NoAgent / Generic / Social mediators",
    description=__doc__, policies=POLICIES, default_policy="none", metrics=tuple(key for key, _, _ in ROWS),
    published=PUBLISHED, episodes=5, cells=cells, table=lambda rows, bench: format_table(rows),
    arguments=add_arguments, run=run))
