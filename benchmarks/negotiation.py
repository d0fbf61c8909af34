"""``python -m benchmarks negotiation``: 002's Table 1 with scripted parties and mediators.

::

    python -m benchmarks negotiation --policy none,generic,social --mode easy,medium,hard \\
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
cell, scenario and seed, so reruns resume.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.cli import add_llm_options, add_run_options, comma_list, progress_bar, split_list
from benchmarks.family import Benchmark, register
from benchmarks.results import RESULTS_VERSION, ResultsFile
from benchmarks.runner import Cell, env_id_for, make_env, play_aec
from benchmarks.stats import mean_ci95
from policies.base import BasePolicy
from policies.negotiation import MEDIATORS as SCRIPTED_MEDIATORS
from policies.negotiation import make_mediator
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, DIFFICULTY_MODES, Scenario, resolve_scenario

ROWS = (("cc", "CC ↑", "%"), ("tle", "TLE ↑", "%"), ("rl", "RL ↓", "turns"), ("me", "ME ↑", "%"),
        ("mi", "MI ↑", ""))
MEDIATOR_ONLY = ("rl", "me", "mi")
LLM_MEDIATORS = ("llm-generic", "llm-social")
ATTITUDES = ("stated", "keyword", "llm")
MI_JUDGES = ("rule-based", "llm")
PARTIES = ("scripted", "llm")
#: 002's Table 1 (GPT-4.1 as the mediator backbone; mean over 6 scenarios x 5 runs) per (conflict
#: mode, mediator): CC, TLE and ME in percent, RL in seconds (ours counts turns), MI on 1-5.
_TABLE_1 = {  # per conflict mode: NoAgent (CC, TLE), Generic and Social (CC, TLE, RL, ME, MI)
    "accommodating": ((18.74, 1.05), (20.13, 1.18, 6.39, 1.18, 4.464), (22.59, 1.16, 4.00, 0.82, 4.319)),
    "avoiding": ((17.49, 1.17), (14.31, 1.04, 25.56, 0.17, 4.260), (13.25, 0.48, 5.69, 0.89, 4.445)),
    "general": ((11.36, 0.54), (10.93, 0.44, 5.64, 2.01, 4.292), (11.39, 0.74, 3.00, 0.25, 4.207)),
    "competing": ((6.83, 0.50), (7.01, 0.23, 15.98, 1.75, 4.225), (10.65, 0.57, 3.71, 0.59, 4.318)),
}
PUBLISHED: dict[tuple[str, str], dict[str, float]] = {
    (mode, mediator): dict(zip(("cc", "tle", "rl", "me", "mi"), values))
    for mode, cells in _TABLE_1.items() for mediator, values in zip(("none", "generic", "social"), cells)}

#: ``factory(name, scenario) -> mediator`` for the LLM mediators (see :func:`llm_mediator_factory`).
LLMMediatorFactory = Callable[[str, Scenario], BasePolicy]


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
    parser.add_argument("--policy", "--mediator", dest="mediator", default="none,generic,social",
                        help=f"comma-separated mediators: {', '.join(SCRIPTED_MEDIATORS)}, or the LLM mediators "
                             f"{', '.join(LLM_MEDIATORS)}")
    parser.add_argument("--mode", default="easy,medium,hard",
                        help="comma-separated difficulty levels: easy, medium, hard")
    parser.add_argument("--scenarios", default="all",
                        help=f"'all' or comma-separated names ({', '.join(BUILTIN_SCENARIOS)}) or scenario file paths")
    parser.add_argument("--mi-judge", choices=MI_JUDGES, default="rule-based",
                        help="who scores interventions: the rule-based judge, or the LLM judge on --backend/--model")
    parser.add_argument("--parties", choices=PARTIES, default="scripted",
                        help="who plays the party seats: the env's scripted parties, or LLM parties on "
                             "--backend/--model (all parties decide a turn in one backend call per stage)")
    parser.add_argument("--attitudes", choices=ATTITUDES, default="stated",
                        help="consensus from the stated stances (exact), or from every line read by the keyword "
                             "or the LLM attitude extractor (LLM: needs --backend/--model)")
    add_llm_options(parser, title="LLM parts (--mediator llm-*; --parties llm; --attitudes llm; --mi-judge llm)",
                    only=("backend", "model", "base_url", "max_model_len", "fallback"),
                    max_model_len_help="vllm: context length (transcripts grow with the turns)")


def _names(text: str, flag: str, item: str, choices: Sequence[str] | None = None) -> list[str]:
    """The items of a comma-separated ``flag``: non-empty, no duplicates, each one of ``choices`` (if given)."""
    try:
        comma_list(choices, name=item)(text)
    except argparse.ArgumentTypeError as exc:
        raise NegotiationConfigError(f"{flag}: {exc}") from None
    return split_list(text)


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the table (or JSON rows) and returns the exit status."""
    mediators = _names(args.mediator, "--mediator", "mediator", list(POLICIES))
    levels = _names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES))
    scenarios = (list(BUILTIN_SCENARIOS) if args.scenarios.strip() == "all"
                 else _names(args.scenarios, "--scenarios", "scenario"))
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
        party_factory = llm_party_factory(backend, args.fallback)
    try:
        rows, records = evaluate(levels, mediators, scenarios, args.episodes, args.seed, Path(args.out), factory,
                                 ident, attitudes=args.attitudes, extractor_factory=extractor, mi_judge=args.mi_judge,
                                 judge_factory=judge, progress=None if args.format != "json" else False,
                                 parties=args.parties, party_factory=party_factory)
    finally:
        if backend is not None:
            backend.close()
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
    written = plot(records, Path(args.plot)) if args.plot else []
    if written and args.format != "json":
        print("\n".join(f"wrote {path}" for path in written))
    return 0


# ---------------------------------------------------------------------- LLM parts
def llm_mediator_factory(backend: Any, fallback: str = "raise") -> LLMMediatorFactory:
    """Builds ``llm-generic`` / ``llm-social`` mediators on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMMediator

    def factory(name: str, scenario: Any) -> BasePolicy:
        return LLMMediator(backend, scenario, variant=name.split("-", 1)[1], fallback=fallback)

    return factory


def llm_extractor_factory(backend: Any, fallback: str = "raise") -> Callable[[Scenario], Any]:
    """Builds the LLM attitude extractor on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMAttitudeExtractor

    return lambda scenario: LLMAttitudeExtractor(backend, scenario, fallback=fallback)


def llm_party_factory(backend: Any, fallback: str = "raise") -> Callable[[Scenario], Any]:
    """Builds one LLM party (:class:`~policies.negotiation_llm.LLMParty`) on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMParty

    return lambda scenario: LLMParty(backend, scenario, fallback=fallback)


class PartyTeam(BasePolicy):
    """LLM parties in the party seats of one negotiation env, deciding each turn together.

    The runner (:func:`benchmarks.runner.play_aec`) asks one seat at a time; at the first party
    seat of a turn the team decides every live party seat at once
    (:meth:`~policies.negotiation_llm.LLMParty.act_parties`: one backend call per prompting stage
    for all of them) and then hands the actions out seat by seat. Give it to the runner for every
    party seat: ``play_aec(env, {**team.seats(), MEDIATOR: mediator}, seed)``.

    Args:
        env: the AEC env it plays in (it reads the seat to move and the seats' infos).
        parties: seat -> LLM party (they share one backend).
    """

    name = "llm-parties"

    def __init__(self, env: Any, parties: Mapping[str, Any]) -> None:
        super().__init__()
        self.env = env
        self.parties = dict(parties)
        self._pending: dict[str, Any] = {}

    def seats(self) -> dict[str, "PartyTeam"]:
        """Seat -> this team, for the runner's seat -> policy mapping."""
        return dict.fromkeys(self.parties, self)

    @property
    def stats(self) -> dict[str, int]:
        """The parties' counters, summed."""
        out: dict[str, int] = {}
        for party in self.parties.values():
            for key, value in party.stats.items():
                out[key] = out.get(key, 0) + value
        return out

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._pending = {}
        for i, party in enumerate(self.parties.values()):
            party.reset(None if seed is None else seed + 1 + i)

    def act(self, observation: Any, info: dict) -> Any:
        from policies.negotiation_llm import LLMParty

        seat = self.env.agent_selection
        if seat not in self._pending:
            live = [a for a in self.env.agents if a in self.parties]
            actions = LLMParty.act_parties([self.parties[a] for a in live], [self.env.infos[a] for a in live])
            self._pending = dict(zip(live, actions))
        return self._pending.pop(seat)


def llm_judge_factory(backend: Any, fallback: str = "raise") -> Callable[[Scenario], Any]:
    """Builds the LLM mediator-intelligence judge on ``backend`` for a scenario."""
    from policies.negotiation_llm import LLMMIJudge

    return lambda scenario: LLMMIJudge(backend, scenario, fallback=fallback)


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

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"version": RESULTS_VERSION, "conflict_mode": self.conflict_mode,
                                  "mediator": self.mediator}
        if self.llm and (self.mediator in LLM_MEDIATORS or self.attitudes == "llm" or self.mi_judge == "llm"
                         or self.parties == "llm"):
            config["llm"] = dict(self.llm)
        if self.attitudes != "stated":
            config["attitudes"] = self.attitudes
        if self.mi_judge != "rule-based":
            config["mi_judge"] = self.mi_judge
        if self.parties != "scripted":
            config["parties"] = self.parties
        return config

    def slug(self) -> str:
        return f"{self.conflict_mode}_{self.mediator}"

    def results(self, out: Path) -> ResultsFile:
        """Records by (scenario, seed)."""
        return ResultsFile(self.path(out), key=lambda rec: (rec["scenario"], int(rec["seed"])),
                           check=lambda rec: rec["episode"]["cc"])

    def make_env(self, scenario: Scenario, parts: dict[str, Any]) -> Any:
        """The registered env of this difficulty, in this conflict mode, on ``scenario``."""
        return make_env(env_id_for("negotiation", "aec", difficulty=self.difficulty), record=False,
                        scenario=scenario, conflict_mode=self.conflict_mode, **parts)


def cell_path(out: Path, conflict_mode: str, mediator: str, ident: dict[str, Any] | None = None,
              attitudes: str = "stated", mi_judge: str = "rule-based") -> Path:
    """The results file of a cell (see :class:`NegotiationCell`)."""
    level = next(lv for lv, modes in DIFFICULTY_MODES.items() if conflict_mode in modes)
    return NegotiationCell(level, conflict_mode, mediator, ident or None, attitudes, mi_judge).path(out)


def play_episode(env: Any, mediator: Any, seed: int, team: PartyTeam | None = None) -> dict[str, Any]:
    """One episode with ``mediator`` in the mediator seat and the env's scripted parties (or the LLM
    ``team`` in the party seats), played by the runner; the env's summary."""
    if team is None:
        return play_aec(env, mediator, seed).info["episode"]
    from tom_envs.negotiation.env import MEDIATOR

    return play_aec(env, {**team.seats(), MEDIATOR: mediator}, seed).info["episode"]


def evaluate(levels: Sequence[str], mediators: Sequence[str], scenarios: Sequence[str], runs: int, seed: int,
             out: Path, llm_factory: LLMMediatorFactory | None = None, ident: dict[str, Any] | None = None,
             attitudes: str = "stated", extractor_factory: Any = None, mi_judge: str = "rule-based",
             judge_factory: Any = None, progress: bool | None = False, parties: str = "scripted",
             party_factory: Any = None) -> tuple[list[dict], dict[tuple[str, str], list[dict]]]:
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
    a bar per cell (None: on a terminal).
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
    if parties == "llm" and party_factory is None:
        raise NegotiationConfigError("parties 'llm' need an LLM backend (--backend/--model)")
    unknown = [m for m in mediators if m not in POLICIES]
    if unknown:
        raise NegotiationConfigError(f"unknown --mediator {unknown}; choose from {', '.join(POLICIES)}")
    specs = [resolve_scenario(s) for s in scenarios]
    parts_for = _Parts(attitudes, mi_judge, extractor_factory, judge_factory,
                       party_factory if parties == "llm" else None)
    rows, records = [], {}
    for cell in grid(levels, mediators, ident, attitudes, mi_judge, parties):
        if cell.mediator in LLM_MEDIATORS and llm_factory is None:
            raise NegotiationConfigError(f"mediator {cell.mediator!r} needs an LLM backend (--backend/--model)")
        recs = run_cell(cell, list(zip(scenarios, specs)), range(seed, seed + runs), out, parts_for, llm_factory,
                        progress)
        records[(cell.conflict_mode, cell.mediator)] = recs
        rows.append(summarise(cell.difficulty, cell.conflict_mode, cell.mediator, recs))
    return rows, records


def grid(levels: Sequence[str], mediators: Sequence[str], ident: Mapping[str, Any] | None = None,
         attitudes: str = "stated", mi_judge: str = "rule-based", parties: str = "scripted") -> list[NegotiationCell]:
    """Table 1's cells, in its column order: every conflict mode of ``levels`` x ``mediators``."""
    return [NegotiationCell(level, mode, med, ident or None, attitudes, mi_judge, parties)
            for level in levels for mode in DIFFICULTY_MODES[level] for med in mediators]


def cells(args: argparse.Namespace) -> list[NegotiationCell]:
    """The cells the command line asks for (the declaration's ``cells``)."""
    return grid(_names(args.mode, "--mode", "difficulty level", list(DIFFICULTY_MODES)),
                _names(args.mediator, "--mediator", "mediator", list(POLICIES)), _ident(args), args.attitudes,
                args.mi_judge, args.parties)


def _ident(args: argparse.Namespace) -> dict[str, Any]:
    """Which LLM decides, reads or judges (none: empty)."""
    if not (any(m in LLM_MEDIATORS for m in split_list(args.mediator)) or args.attitudes == "llm"
            or args.mi_judge == "llm" or args.parties == "llm"):
        return {}
    return {"backend": args.backend, "model": args.model, "base_url": args.base_url, "fallback": args.fallback}


def run_cell(cell: NegotiationCell, scenarios: Sequence[tuple[str, Scenario]], seeds: Sequence[int], out: Path,
             parts_for: "_Parts", llm_factory: LLMMediatorFactory | None = None,
             progress: bool | None = False) -> list[dict]:
    """Every (scenario, seed) record of ``cell``, playing (with :func:`benchmarks.runner.play_aec`)
    only the episodes its results file lacks; each is appended the moment it ends."""
    with cell.results(out) as results:
        todo = results.missing([(name, s) for name, _ in scenarios for s in seeds])
        bar = progress_bar(len(todo), cell.slug().replace("_", " "), progress) if todo else None
        try:
            for name, scenario in scenarios:
                mine = [s for n, s in todo if n == name]
                if not mine:
                    continue
                parts = parts_for(scenario)
                env = cell.make_env(scenario, parts)
                if hasattr(parts.get("mi_judge"), "bind"):
                    parts["mi_judge"].bind(env)
                team = parts_for.team(env, scenario)
                for s in mine:
                    for part in parts.values():
                        if hasattr(part, "reset"):
                            part.reset(s)
                    mediator = POLICIES[cell.mediator](scenario, llm_factory)
                    rec = {"scenario": name, "seed": s, "conflict_mode": cell.conflict_mode,
                           "mediator": cell.mediator, "version": RESULTS_VERSION,
                           "episode": play_episode(env, mediator, s, team)}
                    counters = {who: dict(part.stats) for who, part in
                                [("mediator", mediator), ("extractor", parts.get("attitude_extractor")),
                                 ("mi_judge", parts.get("mi_judge")), ("parties", team)]
                                if isinstance(getattr(part, "stats", None), dict)}
                    if counters:
                        rec["llm_stats"] = counters
                    if team is not None:
                        rec["parties"] = cell.parties
                    results.append(rec)
                    if bar is not None:
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        return [results[(name, s)] for name, _ in scenarios for s in seeds]


@dataclass(frozen=True)
class _Parts:
    """The env's keyword arguments for the attitude source and the MI judge, per scenario."""

    attitudes: str
    mi_judge: str
    extractor_factory: Any = None
    judge_factory: Any = None
    party_factory: Any = None  # LLM parties in every party seat (None: the env's scripted parties)

    def __call__(self, scenario: Scenario) -> dict[str, Any]:
        from tom_envs.negotiation.consensus import KeywordAttitudeExtractor

        out: dict[str, Any] = {}
        if self.attitudes != "stated":
            out["attitude_extractor"] = (KeywordAttitudeExtractor(scenario) if self.attitudes == "keyword"
                                         else self.extractor_factory(scenario))
            out["extract_from"] = "all"
        if self.mi_judge == "llm":
            out["mi_judge"] = self.judge_factory(scenario)
        if self.party_factory is not None:
            out["party_seats"] = "all"
        return out

    def team(self, env: Any, scenario: Scenario) -> PartyTeam | None:
        """The LLM parties of ``env``'s party seats, or None for scripted parties."""
        if self.party_factory is None:
            return None
        return PartyTeam(env, {seat: self.party_factory(scenario) for seat in env.possible_agents
                               if seat.startswith("party_")})


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
    if any("parties" in r for r in records):  # LLM parties (scripted rows keep their keys)
        row["parties"] = records[0].get("parties")
    return row


# ---------------------------------------------------------------------- output
def _metric(key: str, unit: str, value: float | None) -> str:
    return "-" if value is None else (f"{value:.3f}" if key == "mi" else f"{value:.2f}{'%' if unit == '%' else ''}")


def format_table(rows: Sequence[dict]) -> str:
    """002 Table 1's layout: one column per (conflict mode, mediator), one row per metric."""
    heads = [f"{r['conflict_mode'][:5]}/{r['mediator']}" for r in rows]
    width = max([13] + [len(h) for h in heads]) + 1
    lines = ["metric     " + "".join(f"{h:>{width}}" for h in heads)]
    lines.append("difficulty " + "".join(f"{r['difficulty']:>{width}}" for r in rows))
    lines.append("-" * len(lines[0]))
    lines += [f"{label:<11}" + "".join(f"{_metric(key, unit, r[key]):>{width}}" for r in rows)
              for key, label, unit in ROWS]
    published = [PUBLISHED.get((r["conflict_mode"], r["mediator"]), {}) for r in rows]
    if any(published):
        lines.append("002 Table 1 (GPT-4.1 mediators; RL in seconds):")
        lines += [f"{label:<11}" + "".join(f"{_metric(key, unit, p.get(key)):>{width}}" for p in published)
                  for key, label, unit in ROWS]
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
    from tom_envs.errors import import_optional

    matplotlib = import_optional("matplotlib", "bench", "--plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    firsts = {(mode, med, rec["scenario"]): rec for (mode, med), recs in records.items() for rec in reversed(recs)}
    paths = []
    for (mode, med, scenario), rec in firsts.items():
        stem, ep = Path(scenario).stem, rec["episode"]
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for topic, series in ep["topic_consensus"].items():
            ax.plot(range(len(series)), series, label=topic)
        for t in ep["mediator_turns"]:
            ax.axvline(t, color="gray", alpha=0.5, linewidth=1)
        ax.set(xlabel="turn", ylabel="agreement", ylim=(0, 1.02), title=f"{stem} - {mode} - {med} (seed {rec['seed']})")
        ax.legend(fontsize=6, loc="lower right")
        fig.tight_layout()
        paths.append(out_dir / f"negotiation_{stem}_{mode}_{med}.png")
        fig.savefig(paths[-1], dpi=90)
        plt.close(fig)
    return paths


BENCHMARK = register(Benchmark(
    name="negotiation", family="negotiation",
    help="002 Table 1: scripted parties with NoAgent / Generic / Social mediators",
    description=__doc__, policies=POLICIES, default_policy="none", metrics=tuple(key for key, _, _ in ROWS),
    published=PUBLISHED, episodes=5, cells=cells, table=lambda rows, bench: format_table(rows),
    arguments=add_arguments, run=run))
