"""The settings of one ``tom-envs negotiation`` run as typed config objects: :class:`NegotiationRun`
(what to evaluate: the grid, the scenarios, the seeds, the attitude source, MI judge, parties, turn
budget and metric definitions, where to write) and :class:`NegotiationLLM` (which LLM decides,
reads or judges, and the builders of its parts). Their values are checked when they are made
(:class:`~tom_envs.negotiation.errors.NegotiationConfigError` naming the value and the choices)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.negotiation.cells import POLICIES
from benchmarks.negotiation.parts import LLMMediatorFactory, Parts
from benchmarks.negotiation.table import METRICS
from tom_envs.negotiation.case_rules import MAX_EPISODE_WORK
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, DIFFICULTY_MODES

ATTITUDES = ("stated", "keyword", "llm")
MI_JUDGES = ("rule-based", "llm")
PARTIES = ("scripted", "llm", "llm-inner-thoughts")
BUDGETS = ("paper", "release")
AGREEMENTS = ("structural", "llm")
#: ``--behaviour-judge``: the release's prompts asked per mediator line (``simple`` as its script runs, or all three)
BEHAVIOUR_JUDGES = ("simple", "all")


def default_budget(parties: str, budget: str | None = None) -> str:
    """``budget``, else the default for ``parties``: ``paper`` with scripted parties, ``release`` with LLM parties."""
    return budget or ("paper" if parties == "scripted" else "release")


@dataclass(frozen=True)
class NegotiationLLM:
    """Which LLM decides, reads or judges, and the builders of the LLM parts (None: that part has no LLM).

    Attributes:
        ident: backend, model, base URL and fallback; part of the results key of every cell an LLM
            takes part in (empty: no LLM).
        mediator: ``factory(name, scenario)`` of the LLM mediators
            (:func:`~benchmarks.negotiation.parts.llm_mediator_factory`).
        extractor: ``factory(scenario)`` of the LLM attitude extractor (``attitudes="llm"``).
        judge: ``factory(scenario)`` of the LLM MI judge (``mi_judge="llm"``).
        party: ``factory(scenario)`` of one LLM party (``parties`` other than ``"scripted"``).
        agreement: ``factory(scenario)`` of the LLM agreement judge (``agreement="llm"``).
        behaviour: ``factory(choice)`` of the release's behaviour judge (``behaviour_judge``).
    """

    ident: Mapping[str, Any] = field(default_factory=dict)
    mediator: LLMMediatorFactory | None = None
    extractor: Callable[[Any], Any] | None = None
    judge: Callable[[Any], Any] | None = None
    party: Callable[[Any], Any] | None = None
    agreement: Callable[[Any], Any] | None = None
    behaviour: Callable[[str], Any] | None = None

    @classmethod
    def on(
        cls,
        backend: Any,
        ident: Mapping[str, Any],
        fallback: str,
        parties: str,
        max_resamples: int | None = None,
        max_tokens: int | None = None,
    ) -> "NegotiationLLM":
        """Every LLM part on ``backend`` (LLM parties think as ``parties`` says; ``max_resamples``: re-asks
        after an unusable reply, ``max_tokens``: the cap on each generated reply; None for each part's
        default)."""
        from benchmarks.negotiation.parts import (
            llm_agreement_factory,
            llm_behaviour_factory,
            llm_extractor_factory,
            llm_judge_factory,
            llm_mediator_factory,
            llm_party_factory,
        )

        strategy = "inner_thoughts" if parties == "llm-inner-thoughts" else "release"
        caps = (max_resamples, max_tokens)
        return cls(
            dict(ident),
            llm_mediator_factory(backend, fallback, *caps),
            llm_extractor_factory(backend, fallback, *caps),
            llm_judge_factory(backend, fallback, *caps),
            llm_party_factory(backend, fallback, strategy, *caps),
            llm_agreement_factory(backend, fallback, *caps),
            llm_behaviour_factory(backend, fallback, *caps),
        )


def _choice(value: str, choices: tuple[str, ...], what: str) -> None:
    if value not in choices:
        raise NegotiationConfigError(f"unknown {what} {value!r}; choose from {', '.join(choices)}")


@dataclass(frozen=True)
class NegotiationRun:
    """One run (or resumption) of 002's Table 1 grid.

    Attributes:
        levels: difficulty levels (``easy``, ``medium``, ``hard``); each gives its conflict modes' columns.
        mediators: mediator names (:data:`~benchmarks.negotiation.cells.POLICIES`).
        scenarios: built-in scenario names or scenario / ProMediate case file paths.
        runs: episodes per scenario and cell; run r uses seed ``seed + r``.
        seed: the first run's seed.
        out: the results folder (records under ``out/negotiation/``).
        metrics: the definitions the rows use (``release`` or ``paper``; every record holds both).
        parties: ``scripted`` (the env's parties) or LLM parties (``llm``, ``llm-inner-thoughts``).
        budget: turns per episode, ``paper`` or ``release`` (None: the default for ``parties``).
        attitudes: where consensus tracking takes the attitudes from: ``stated``, ``keyword``, ``llm``.
        mi_judge: who scores interventions: ``rule-based`` or ``llm``.
        agreement: who scores each pair's agreement on a topic: ``structural`` (the formula of
            :mod:`tom_envs.negotiation.consensus`) or ``llm`` (:class:`~policies.negotiation.llm.LLMAgreementJudge`).
        behaviour_judge: None (default), or the release's behaviour prompts asked of every mediator line after
            each episode on the LLM (``simple`` or ``all``; :mod:`policies.negotiation.llm.behaviour`).
        env_version: the version of the ids played (1: ``tom/Negotiation-*-v1``; 2: v2, the release's turn
            order and opening line).
        llm: the LLM parts (:class:`NegotiationLLM`).
        lockstep: > 1 plays up to that many episodes of a scenario together when an LLM mediator
            sits with scripted parties (:func:`benchmarks.runner.play_aec_lockstep`).
        progress: a bar per cell (None: on a terminal).
        max_work: the bound on an episode's work figure (``--max-work``,
            :func:`~tom_envs.negotiation.case_rules.episode_work`; a scenario above it is a
            :class:`~tom_envs.negotiation.errors.CaseTooLargeError` before any episode is played).
    """

    levels: tuple[str, ...] = tuple(DIFFICULTY_MODES)
    mediators: tuple[str, ...] = ("none", "blind", "generic", "social")
    scenarios: tuple[str, ...] = tuple(BUILTIN_SCENARIOS)
    runs: int = 5
    seed: int = 0
    out: Path = Path("results")
    metrics: str = "release"
    parties: str = "scripted"
    budget: str | None = None
    attitudes: str = "stated"
    mi_judge: str = "rule-based"
    llm: NegotiationLLM = field(default_factory=NegotiationLLM)
    lockstep: int = 1
    progress: bool | None = False
    agreement: str = "structural"
    env_version: int = 1
    behaviour_judge: str | None = None
    max_work: int = MAX_EPISODE_WORK

    def __post_init__(self) -> None:
        for name in ("levels", "mediators", "scenarios"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "out", Path(self.out))
        _choice(self.attitudes, ATTITUDES, "attitudes")
        _choice(self.mi_judge, MI_JUDGES, "MI judge")
        _choice(self.parties, PARTIES, "parties")
        _choice(self.turn_budget, BUDGETS, "budget")
        _choice(self.metrics, METRICS, "metrics")
        _choice(self.agreement, AGREEMENTS, "agreement")
        if self.behaviour_judge is not None:
            _choice(self.behaviour_judge, BEHAVIOUR_JUDGES, "behaviour judge")
        from benchmarks.negotiation.cells import env_versions

        if self.env_version not in env_versions():
            raise NegotiationConfigError(
                f"unknown env version {self.env_version!r}; registered: {', '.join(map(str, env_versions()))}"
            )
        if isinstance(self.max_work, bool) or not isinstance(self.max_work, int) or self.max_work < 1:
            raise NegotiationConfigError(
                f"--max-work must be a positive integer (the bound on an episode's work "
                f"figure; default {MAX_EPISODE_WORK:,}), got {self.max_work!r}"
            )
        unknown = [level for level in self.levels if level not in DIFFICULTY_MODES]
        if unknown:
            raise NegotiationConfigError(
                f"unknown difficulty levels {unknown}; choose from {', '.join(DIFFICULTY_MODES)}"
            )
        unknown = [m for m in self.mediators if m not in POLICIES]
        if unknown:
            raise NegotiationConfigError(f"unknown --mediator {unknown}; choose from {', '.join(POLICIES)}")

    @property
    def turn_budget(self) -> str:
        """``budget``, or the default for ``parties``."""
        return default_budget(self.parties, self.budget)

    def needs_llm(self) -> None:
        """Raise if a part that needs an LLM has no builder in :attr:`llm`."""
        if self.attitudes == "llm" and self.llm.extractor is None:
            raise NegotiationConfigError("attitudes 'llm' needs an LLM backend (--backend/--model)")
        if self.mi_judge == "llm" and self.llm.judge is None:
            raise NegotiationConfigError("MI judge 'llm' needs an LLM backend (--backend/--model)")
        if self.agreement == "llm" and self.llm.agreement is None:
            raise NegotiationConfigError("agreement 'llm' needs an LLM backend (--backend/--model)")
        if self.behaviour_judge is not None and self.llm.behaviour is None:
            raise NegotiationConfigError("--behaviour-judge needs an LLM backend (--backend/--model)")
        if self.parties != "scripted" and self.llm.party is None:
            raise NegotiationConfigError(f"parties {self.parties!r} need an LLM backend (--backend/--model)")

    def parts(self) -> Parts:
        """The env's attitude source, MI judge, party seats and turn budget, per scenario."""
        return Parts(
            self.attitudes,
            self.mi_judge,
            self.llm.extractor,
            self.llm.judge,
            self.llm.party if self.parties != "scripted" else None,
            self.turn_budget,
            self.agreement,
            self.llm.agreement,
            self.max_work,
        )

    def keys(self) -> list[tuple[str, int]]:
        """Every (scenario, seed) episode of a cell, scenario by scenario (scenarios by :func:`scenario_key`)."""
        return [(scenario_key(name), s) for name in self.scenarios for s in range(self.seed, self.seed + self.runs)]


def scenario_key(name: str) -> str:
    """The name a scenario's episodes are stored under in a cell's results file: a built-in name as it is; a
    scenario or ProMediate case file as ``<file name>@<sha256 of its bytes, first 12 hex digits>``.

    So the same file gives the same key wherever it lies (records name no folder of the machine that made them, and
    a copy elsewhere resumes them), an edited file gets a new key (its episodes are played again, never resumed
    from the old ones), and a released case never takes the key of the built-in scenario of the same name.
    """
    import hashlib

    if name in BUILTIN_SCENARIOS:
        return name
    path = Path(name)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return name  # not a readable file: resolve_scenario names the problem when the scenario is loaded
    return f"{path.name}@{digest}"


__all__ = [
    "AGREEMENTS",
    "ATTITUDES",
    "BEHAVIOUR_JUDGES",
    "BUDGETS",
    "MI_JUDGES",
    "NegotiationLLM",
    "NegotiationRun",
    "PARTIES",
    "default_budget",
    "scenario_key",
]
