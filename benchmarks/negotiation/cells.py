"""Table 1's cells for the generic runner: :class:`NegotiationCell` says how to key, make, play and
record the episodes of one (conflict mode, mediator) cell; :func:`benchmarks.runner.run_cell` runs
it (locked, resumable, one record appended per finished episode).

A cell's results file holds every (scenario, seed) episode of the cell, so the runner's "seeds" of a
negotiation cell are ``(scenario name, seed)`` keys, scenario by scenario. One env per scenario
(built when its first missing episode comes up, with its LLM parts and party team) plays that
scenario's episodes one after the other (:func:`benchmarks.runner.play_aec`); in lockstep, an LLM
mediator plays the episodes of a batch together, one env each
(:func:`benchmarks.runner.play_aec_lockstep`; records equal those of a run one by one).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarks.negotiation.parts import LLMMediatorFactory, Parts, PartyTeam
from benchmarks.results import RESULTS_VERSION, ResultsFile
from benchmarks.runner import Cell
from benchmarks.runner_aec import play_aec, play_aec_lockstep
from benchmarks.runner_envs import make_env, recorder_of
from benchmarks.runner_episodes import EpisodeResult
from policies.base import BasePolicy
from policies.negotiation.scripted import MEDIATORS as SCRIPTED_MEDIATORS
from policies.negotiation.scripted import make_mediator
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.scenario import DIFFICULTY_MODES, Scenario

LLM_MEDIATORS = ("llm-generic", "llm-social", "llm-social-paper")
#: LLM mediators that play several episodes in lockstep (--lockstep)
LOCKSTEP_MEDIATORS = ("llm-generic", "llm-social")
#: ``(scenario name, seed)``: an episode of a cell (the runner's seed of a negotiation cell)
EpisodeKey = tuple[str, int]


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
    **{name: _scripted(name) for name in SCRIPTED_MEDIATORS},
    **{name: _llm(name) for name in LLM_MEDIATORS},
}


@dataclass(frozen=True)
class CellSetup:
    """What a cell's episodes are played with (not part of its key): the scenarios by name, the
    env's parts per scenario (:class:`~benchmarks.negotiation.parts.Parts`) and the LLM mediator factory."""

    scenarios: Mapping[str, Scenario]
    parts: Parts
    llm_mediator: LLMMediatorFactory | None = None
    behaviour: Callable[[str], Any] | None = None  # the release's behaviour judge by --behaviour-judge choice


@dataclass(frozen=True)
class NegotiationCell(Cell):
    """One Table 1 cell: a conflict mode (of a difficulty level) x a mediator, with the attitude
    source and MI judge; its results file holds every (scenario, seed) episode of the cell.

    ``llm`` (backend, model, base URL, fallback) is part of the key when an LLM decides, reads or
    judges, so results of different models never mix. ``setup`` (what the episodes are played
    with) is needed to play, not to key or read the cell."""

    family: ClassVar[str] = "negotiation"
    difficulty: str
    conflict_mode: str
    mediator: str
    llm: Mapping[str, Any] | None = None  # who decides, reads or judges when an LLM does
    attitudes: str = "stated"
    mi_judge: str = "rule-based"
    parties: str = "scripted"
    budget: str = "paper"
    agreement: str = "structural"
    setup: CellSetup | None = field(default=None, compare=False, repr=False)
    env_version: int = 1  # 2: tom/Negotiation-*-v2 (the release's turn order and opening line)
    behaviour_judge: str | None = None  # the release's behaviour prompts asked after each episode (simple, all)
    case_files: bool = False  # scenarios from files (the released cases): never pooled with the built-in ones

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "version": RESULTS_VERSION,
            "conflict_mode": self.conflict_mode,
            "mediator": self.mediator,
        }
        if self.llm and (
            self.mediator in LLM_MEDIATORS
            or self.attitudes == "llm"
            or self.mi_judge == "llm"
            or self.parties != "scripted"
            or self.agreement == "llm"
            or self.behaviour_judge
        ):
            config["llm"] = dict(self.llm)
        if self.attitudes != "stated":
            config["attitudes"] = self.attitudes
        if self.mi_judge != "rule-based":
            config["mi_judge"] = self.mi_judge
        if self.parties != "scripted":
            config["parties"] = self.parties
        if self.budget != "paper":
            config["budget"] = self.budget
        if self.agreement != "structural":
            config["agreement"] = self.agreement
        if self.env_version != 1:  # keyed only off v1: v1 runs keep their keys
            config["env_version"] = self.env_version
        if self.behaviour_judge is not None:  # keyed only when set
            config["behaviour_judge"] = self.behaviour_judge
        if self.case_files:  # keyed only when set: the built-in scenarios' cells keep their keys
            config["case_files"] = True
        return config

    def slug(self) -> str:
        return f"{self.conflict_mode}_{self.mediator}"

    def check(self, record: dict) -> None:
        record["episode"]["cc"]

    def results(self, out: Path) -> ResultsFile:
        """Records by (scenario, seed)."""
        return ResultsFile(self.path(out), key=lambda rec: (rec["scenario"], int(rec["seed"])), check=self.check)

    # ------------------------------------------------------------------ playing (needs ``setup``)
    def make_env(self) -> "ScenarioTable":
        """The cell's env, one scenario at a time (:class:`ScenarioTable`)."""
        return ScenarioTable(self)

    def make_policy(self) -> Callable[[Scenario], BasePolicy]:
        """The mediator's builder: a fresh mediator for a scenario (one per episode, or per lockstep batch)."""
        setup = self.required_setup()
        return lambda scenario: POLICIES[self.mediator](scenario, setup.llm_mediator)

    def seat(self, scenario: Scenario, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        """An env of this cell on ``scenario`` with its parts (the MI judge bound to it; reseeded when
        ``seed`` is given): the registered env of this difficulty, in this conflict mode, wrapped as the
        runner wraps it (the ToM recorder scoring the mediator's predictions, out of band), in its text
        form (:class:`wrappers.AECTextObservation`: LLM seats read their text from the observation; the
        scripted mediators read ``info["state"]``)."""
        from wrappers import AECTextObservation

        parts = self.required_setup().parts(scenario)
        # v2 opens with the release's line: the mediator's, or a random party's in NoAgent (mediator "none")
        opening = {"opening": "party"} if self.env_version != 1 and self.mediator == "none" else {}
        env = AECTextObservation(
            make_env(
                level_env_id(self.difficulty, self.env_version),
                scenario=scenario,
                conflict_mode=self.conflict_mode,
                **parts,
                **opening,
            )
        )
        if hasattr(parts.get("mi_judge"), "bind"):
            parts["mi_judge"].bind(env)
        if seed is not None:
            _reseed(parts, seed)
        return env, parts

    def play(
        self, table: "ScenarioTable", mediator_for: Callable[[Scenario], BasePolicy], seed: EpisodeKey
    ) -> EpisodeResult:
        """Episode ``seed`` = (scenario, seed) on the scenario's env, with a fresh mediator (and the LLM
        party team, if any); the result's ``summary`` is the episode's record (:func:`episode_record`)
        and its ``policy_stats`` the LLM parts' counters."""
        name, s = seed
        env, parts, team = table.on(name)
        _reseed(parts, s)
        mediator = mediator_for(table.scenario)
        result = play_aec(env, mediator if team is None else {**team.seats(), _mediator_seat(): mediator}, s)
        own = {"mediator": dict(mediator.stats)} if isinstance(getattr(mediator, "stats", None), dict) else {}
        summary = episode_record(env, result)
        if team is not None:  # the LLM parties' thoughts, motivation and turn-allocation predictions, per turn
            summary["party_log"] = list(team.log)
        own.update(self._judge_behaviour(table, env, summary, s))
        return replace(result, summary=summary, policy_stats=_counters(own, parts, team))

    def _judge_behaviour(self, table: "ScenarioTable", env: Any, summary: dict[str, Any], seed: int) -> dict[str, dict]:
        """With ``behaviour_judge``: the release's behaviour scores of the episode's mediator lines into
        ``summary`` (:meth:`~policies.negotiation.llm.behaviour.LLMBehaviourJudge.score_episode`); the judge's
        counters by name (none without it)."""
        if self.behaviour_judge is None:
            return {}
        judge = table.behaviour_judge()
        judge.reset(seed)
        summary.update(judge.score_episode(env.unwrapped.events))
        return {"behaviour_judge": dict(judge.stats)}

    def play_batch(
        self,
        tables: Sequence["ScenarioTable"],
        mediator_for: Callable[[Scenario], BasePolicy],
        seeds: Sequence[EpisodeKey],
    ) -> list[EpisodeResult]:
        """The episodes of a batch in lockstep, scenario by scenario: one env per episode (reseeded
        parts) and one mediator for the scenario's episodes."""
        setup = self.required_setup()
        out = []
        for name, group in itertools.groupby(seeds, key=lambda key: key[0]):
            batch = [s for _, s in group]
            scenario = setup.scenarios[name]
            seats = [self.seat(scenario, s) for s in batch]
            mediator = mediator_for(scenario)
            played = play_aec_lockstep([env for env, _ in seats], mediator, batch)
            table = ScenarioTable(self)
            for (env, parts), result, stats, s in zip(seats, played, mediator.episode_stats(), batch):
                summary = episode_record(env, result)
                own = {"mediator": stats, **self._judge_behaviour(table, env, summary, s)}
                out.append(replace(result, summary=summary, policy_stats=_counters(own, parts, None)))
        return out

    def record(self, seed: EpisodeKey, result: EpisodeResult) -> dict[str, Any]:
        """One episode's record; the LLM parts' counters (calls, parse failures, fallbacks) under ``llm_stats``."""
        name, s = seed
        rec = {
            "scenario": name,
            "seed": s,
            "conflict_mode": self.conflict_mode,
            "mediator": self.mediator,
            "version": RESULTS_VERSION,
            "episode": result.summary,
        }
        if result.policy_stats:
            rec["llm_stats"] = result.policy_stats
        if self.parties != "scripted":
            rec["parties"] = self.parties
        if self.env_version != 1:
            rec["env_version"] = self.env_version
        return rec

    def required_setup(self) -> CellSetup:
        """The cell's :attr:`setup`; a :class:`NegotiationConfigError` without one."""
        if self.setup is None:
            raise NegotiationConfigError(
                f"cell {self.slug()} has no setup to play with; give it one "
                "(dataclasses.replace(cell, setup=CellSetup(...)))"
            )
        return self.setup


class ScenarioTable:
    """A cell's env on one scenario at a time, with its parts and LLM party team: built when an
    episode of another scenario comes up, reused for that scenario's episodes (the runner's keys
    come scenario by scenario)."""

    def __init__(self, cell: NegotiationCell) -> None:
        self.cell = cell
        self.name: str | None = None
        self.scenario: Any = None
        self.env: Any = None
        self.parts: dict[str, Any] = {}
        self.team: PartyTeam | None = None
        self._behaviour: Any = None

    def behaviour_judge(self) -> Any:
        """The cell's behaviour judge (built on first use, from the setup's factory)."""
        if self._behaviour is None:
            factory = self.cell.required_setup().behaviour
            if factory is None:
                raise NegotiationConfigError(
                    f"behaviour judge {self.cell.behaviour_judge!r} needs an LLM backend (--backend/--model)"
                )
            self._behaviour = factory(self.cell.behaviour_judge)
        return self._behaviour

    def on(self, name: str) -> tuple[Any, dict[str, Any], PartyTeam | None]:
        """The env, parts and party team (None: scripted parties) of scenario ``name``."""
        if name != self.name:
            setup = self.cell.required_setup()
            self.name, self.scenario = name, setup.scenarios[name]
            self.env, self.parts = self.cell.seat(self.scenario)
            self.team = setup.parts.team(self.env, self.scenario)
        return self.env, self.parts, self.team


def env_versions() -> tuple[int, ...]:
    """The versions of the family's registered ids (1: ``tom/Negotiation-v1`` and its levels, 2: v2)."""
    import tom_envs

    return tuple(
        sorted(
            {
                _version(rec.id)
                for rec in tom_envs.REGISTRY.values()
                if rec.family == "negotiation" and rec.kind == "aec"
            }
        )
    )


def level_env_id(difficulty: str, version: int = 1) -> str:
    """The registered id of difficulty level ``difficulty`` in version ``version`` (``tom/Negotiation-Hard-v2``).
    Picked by version, never "the newest": a new version must not change what an existing command plays."""
    import tom_envs

    found = [
        rec.id
        for rec in tom_envs.REGISTRY.values()
        if rec.family == "negotiation"
        and rec.kind == "aec"
        and rec.kwargs.get("difficulty") == difficulty
        and _version(rec.id) == version
    ]
    if not found:
        raise NegotiationConfigError(
            f"no registered negotiation id of level {difficulty!r} in version v{version}; "
            f"versions: {', '.join(f'v{v}' for v in env_versions())}"
        )
    return found[0]


def _version(env_id: str) -> int:
    tail = env_id.rsplit("-v", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _mediator_seat() -> str:
    from tom_envs.negotiation.env import MEDIATOR

    return MEDIATOR


def _reseed(parts: Mapping[str, Any], seed: int) -> None:
    for part in parts.values():
        if hasattr(part, "reset"):
            part.reset(seed)


def _counters(counters: dict[str, dict], parts: Mapping[str, Any], team: PartyTeam | None) -> dict[str, dict]:
    """``counters`` and the LLM parts' counters (calls, parse failures, fallbacks) by who keeps them."""
    return {
        **counters,
        **{
            who: dict(part.stats)
            for who, part in [
                ("extractor", parts.get("attitude_extractor")),
                ("mi_judge", parts.get("mi_judge")),
                ("agreement", parts.get("agreement")),
                ("parties", team),
            ]
            if isinstance(getattr(part, "stats", None), dict)
        },
    }


def cell_path(
    out: Path,
    conflict_mode: str,
    mediator: str,
    ident: dict[str, Any] | None = None,
    attitudes: str = "stated",
    mi_judge: str = "rule-based",
) -> Path:
    """The results file of a cell (see :class:`NegotiationCell`)."""
    level = next(lv for lv, modes in DIFFICULTY_MODES.items() if conflict_mode in modes)
    return NegotiationCell(level, conflict_mode, mediator, ident or None, attitudes, mi_judge).path(out)


def play_episode(env: Any, mediator: Any, seed: int, team: PartyTeam | None = None) -> dict[str, Any]:
    """One episode with ``mediator`` in the mediator seat and the env's scripted parties (or the LLM
    ``team`` in the party seats), played by the runner; the env's summary with the recorder's
    literal-ToM score (:func:`episode_record`)."""
    if team is None:
        return episode_record(env, play_aec(env, mediator, seed))
    return episode_record(env, play_aec(env, {**team.seats(), _mediator_seat(): mediator}, seed))


def episode_record(env: Any, result: Any) -> dict[str, Any]:
    """The env's episode summary (``result.info["episode"]``) with the mediator's literal-ToM score from
    the ToM recorder in ``env``'s wrapper chain, read after the episode: ``tom_accuracy`` (a share, of
    the cells predicted; None without predictions), ``tom_predictions`` (cells predicted) and
    ``tom_cells`` (the counts on unstated and changing cells, :func:`~benchmarks.negotiation.stance_cells.episode_cells`)."""
    from benchmarks.negotiation.stance_cells import episode_cells
    from tom_envs.scoring import NOT_PREDICTED

    episode = dict(result.info["episode"])
    recorder = recorder_of(env)
    cells = 0
    if recorder is not None:
        for rec in recorder.records:
            pred = rec.get("prediction")
            if pred is not None:
                cells += int((np.asarray(pred) != NOT_PREDICTED).sum())
    acc = result.summary.get("tom_accuracy") if recorder is not None else None
    episode["tom_accuracy"] = None if acc is None or not cells else float(acc) / 100.0
    episode["tom_predictions"] = cells
    if recorder is not None:
        episode["tom_cells"] = episode_cells(
            recorder.records, env.unwrapped.public_state(), str(episode.get("scenario"))
        )
    return episode


__all__ = [
    "CellSetup",
    "EpisodeKey",
    "LLM_MEDIATORS",
    "LOCKSTEP_MEDIATORS",
    "NegotiationCell",
    "POLICIES",
    "ScenarioTable",
    "cell_path",
    "env_versions",
    "episode_record",
    "level_env_id",
    "play_episode",
]
