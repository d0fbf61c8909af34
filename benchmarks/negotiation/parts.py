"""What takes part in a negotiation episode besides the mediator seat's policy: LLM mediators, LLM
parties (a :class:`~policies.negotiation.llm.parties.PartyTeam` in every party seat, re-exported here), the
attitude source and the MI judge.

The builders take a backend, a fallback, the re-asks and the generation cap (None: each part's own
default) and return ``factory(scenario)`` (mediators:
``factory(name, scenario)``); :class:`Parts` turns the command's choices into the env's keyword
arguments and the party team, per scenario.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from policies.base import BasePolicy
from policies.negotiation.llm.parties import PartyTeam  # re-exported: it lives with the LLM parties
from tom_envs.negotiation.case_rules import MAX_EPISODE_WORK, check_work
from tom_envs.negotiation.scenario import Scenario

#: ``factory(name, scenario) -> mediator`` for the LLM mediators (see :func:`llm_mediator_factory`).
LLMMediatorFactory = Callable[[str, Scenario], BasePolicy]


def _caller(fallback: str, max_resamples: int | None, max_tokens: int | None) -> dict[str, Any]:
    """The caller settings every LLM part takes (None: the part's own default re-asks / generation cap)."""
    return {"fallback": fallback, "max_resamples": max_resamples, "max_tokens": max_tokens}


def llm_mediator_factory(
    backend: Any,
    fallback: str = "raise",
    max_resamples: int | None = None,
    max_tokens: int | None = None,
    decode: str = "generate",
) -> LLMMediatorFactory:
    """Builds ``llm-generic`` / ``llm-social`` mediators (:class:`~policies.negotiation.llm.LLMMediator`, which
    decide by ``decode``: ``"generate"`` or ``"score"``, :mod:`policies.llm.decode`) and ``llm-social-paper``
    (002's social mediator as the release builds it, :class:`~policies.negotiation.llm.SocialMediatorLLM`,
    generation only) on ``backend`` for a scenario.

    Raises:
        InvalidPolicyConfig: an unknown ``decode``, or ``"score"`` for ``llm-social-paper``.
    """
    from policies.llm.decode import check_decode
    from policies.llm.errors import InvalidPolicyConfig
    from policies.negotiation.llm import LLMMediator, SocialMediatorLLM

    kw = _caller(fallback, max_resamples, max_tokens)
    check_decode(decode)

    def factory(name: str, scenario: Any) -> BasePolicy:
        if name == "llm-social-paper":
            if decode != "generate":
                raise InvalidPolicyConfig(
                    "llm-social-paper drafts and rates free-text interventions, so it only generates; use "
                    "llm-social or llm-generic with decode='score'"
                )
            return SocialMediatorLLM(backend, scenario, **kw)
        return LLMMediator(backend, scenario, variant=name.split("-", 1)[1], decode=decode, **kw)

    return factory


def llm_extractor_factory(
    backend: Any, fallback: str = "raise", max_resamples: int | None = None, max_tokens: int | None = None
) -> Callable[[Scenario], Any]:
    """Builds the LLM attitude extractor on ``backend`` for a scenario."""
    from policies.negotiation.llm import LLMAttitudeExtractor

    kw = _caller(fallback, max_resamples, max_tokens)
    return lambda scenario: LLMAttitudeExtractor(backend, scenario, **kw)


def llm_party_factory(
    backend: Any,
    fallback: str = "raise",
    strategy: str = "release",
    max_resamples: int | None = None,
    max_tokens: int | None = None,
) -> Callable[[Scenario], Any]:
    """Builds one LLM party (:class:`~policies.negotiation.llm.LLMParty`) on ``backend`` for a scenario;
    ``strategy`` ``"release"`` (the release's loop) or ``"inner_thoughts"``."""
    from policies.negotiation.llm import LLMParty

    kw = _caller(fallback, max_resamples, max_tokens)
    return lambda scenario: LLMParty(backend, scenario, strategy=strategy, **kw)


def llm_agreement_factory(
    backend: Any, fallback: str = "raise", max_resamples: int | None = None, max_tokens: int | None = None
) -> Callable[[Scenario], Any]:
    """Builds the LLM agreement judge (:class:`~policies.negotiation.llm.LLMAgreementJudge`: five 1-5
    dimensions per pair and topic, the release's consensus scoring) on ``backend``, one per scenario."""
    from policies.negotiation.llm import LLMAgreementJudge

    kw = _caller(fallback, max_resamples, max_tokens)
    return lambda scenario: LLMAgreementJudge(backend, **kw)


def llm_behaviour_factory(
    backend: Any, fallback: str = "raise", max_resamples: int | None = None, max_tokens: int | None = None
) -> Callable[[str], Any]:
    """Builds the release's behaviour judge (:class:`~policies.negotiation.llm.behaviour.LLMBehaviourJudge`) on
    ``backend`` for a ``--behaviour-judge`` choice (``simple``: the release's script as it runs; ``all``)."""
    from policies.negotiation.llm.behaviour import JUDGE_KINDS, LLMBehaviourJudge

    kw = _caller(fallback, max_resamples, max_tokens)
    return lambda choice: LLMBehaviourJudge(backend, JUDGE_KINDS[choice], **kw)


def llm_judge_factory(
    backend: Any, fallback: str = "raise", max_resamples: int | None = None, max_tokens: int | None = None
) -> Callable[[Scenario], Any]:
    """Builds the LLM mediator-intelligence judge on ``backend`` for a scenario."""
    from policies.negotiation.llm import LLMMIJudge

    kw = _caller(fallback, max_resamples, max_tokens)
    return lambda scenario: LLMMIJudge(backend, scenario, **kw)


def release_budget(scenario: Scenario) -> int:
    """The release loop's turns: ``4 * (participants - 1) * issues`` with the mediator among the
    participants, i.e. 4 x parties x topics (at least the env's 20)."""
    from tom_envs.negotiation.scenario import MIN_TURNS

    return max(MIN_TURNS, 4 * len(scenario.parties) * len(scenario.topics))


@dataclass(frozen=True)
class Parts:
    """The env's keyword arguments for the attitude source and the MI judge, per scenario."""

    attitudes: str
    mi_judge: str
    extractor_factory: Any = None
    judge_factory: Any = None
    party_factory: Any = None  # LLM parties in every party seat (None: the env's scripted parties)
    budget: str = "paper"  # "release": the release loop's 4 x parties x topics turns
    agreement: str = "structural"  # "llm": the LLM agreement judge scores every pair (the env's agreement=)
    agreement_factory: Any = None
    max_work: int = MAX_EPISODE_WORK  # the env's bound on an episode's work figure (--max-work)

    def turns(self, scenario: Scenario) -> int:
        """The turns of an episode of ``scenario`` under :attr:`budget`."""
        return release_budget(scenario) if self.budget == "release" else scenario.budget

    def check_work(self, scenario: Scenario) -> int:
        """The work figure of an episode of ``scenario``; a :class:`~tom_envs.negotiation.errors.CaseTooLargeError`
        above :attr:`max_work` (before any episode is played)."""
        seats = 1 + (len(scenario.parties) if self.party_factory is not None else 0)  # the mediator (and LLM parties)
        return check_work(
            scenario.source, len(scenario.parties), len(scenario.topics), self.turns(scenario), seats, self.max_work
        )

    def __call__(self, scenario: Scenario) -> dict[str, Any]:
        from tom_envs.negotiation.consensus import KeywordAttitudeExtractor

        out: dict[str, Any] = {"max_work": self.max_work} if self.max_work != MAX_EPISODE_WORK else {}
        if self.attitudes != "stated":
            out["attitude_extractor"] = (
                KeywordAttitudeExtractor(scenario) if self.attitudes == "keyword" else self.extractor_factory(scenario)
            )
            out["extract_from"] = "all"
        if self.mi_judge == "llm":
            out["mi_judge"] = self.judge_factory(scenario)
        if self.agreement == "llm":
            out["agreement"] = self.agreement_factory(scenario)
        if self.party_factory is not None:
            out["party_seats"] = "all"
        if self.budget == "release":
            out["turn_budget"] = release_budget(scenario)
        return out

    def team(self, env: Any, scenario: Scenario) -> PartyTeam | None:
        """The LLM parties of ``env``'s party seats, or None for scripted parties."""
        if self.party_factory is None:
            return None
        return PartyTeam(
            env, {seat: self.party_factory(scenario) for seat in env.possible_agents if seat.startswith("party_")}
        )


# ---------------------------------------------------------------------- consensus movement
EPS = 1e-9


def movement(records: list[dict]) -> dict[str, float | None]:
    """How the consensus moved in a cell's episodes (002 §5: Easy converges steadily, Hard shows
    "volatile, interleaved shifts between topics"), per episode on average:

    * ``rises`` / ``falls``: turns where the overall consensus went up / down;
    * ``reversals``: per topic, the times its agreement changed direction (up then down or down then
      up), summed over the topics;
    * ``interleaved``: turns where some topic's agreement fell while another topic had risen within
      the last 5 turns;
    * ``reactance``: party reactions against a mediator move (the scripted parties' count).
    """
    eps = [r["episode"] for r in records]
    if not eps:
        return {"rises": None, "falls": None, "reversals": None, "interleaved": None, "reactance": None}
    rises = falls = reversals = interleaved = react = 0
    for e in eps:
        c = e["consensus"]
        rises += sum(1 for a, b in zip(c, c[1:]) if b > a + EPS)
        falls += sum(1 for a, b in zip(c, c[1:]) if b < a - EPS)
        series = list(e["topic_consensus"].values())
        last_rise: dict[int, int] = {}
        for s in series:
            moves = [1 if b > a + EPS else -1 for a, b in zip(s, s[1:]) if abs(b - a) > EPS]
            reversals += sum(1 for a, b in zip(moves, moves[1:]) if a != b)
        for t in range(1, len(c)):
            for k, s in enumerate(series):
                if s[t] > s[t - 1] + EPS:
                    last_rise[k] = t
            fell = [k for k, s in enumerate(series) if s[t] < s[t - 1] - EPS]
            if fell and any(kk not in fell and t - tt <= 5 for kk, tt in last_rise.items()):
                interleaved += 1
        react += sum(len(iv.get("reactance") or []) for iv in e.get("interventions", []))
    n = len(eps)
    return {
        "rises": rises / n,
        "falls": falls / n,
        "reversals": reversals / n,
        "interleaved": interleaved / n,
        "reactance": react / n,
    }


def format_movement(rows: list[dict]) -> str:
    """The movement of every column of a table (:func:`movement`), one line per quantity."""
    if not rows or rows[0].get("falls") is None:
        return ""
    heads = [f"{r['conflict_mode'][:5]}/{r['mediator']}" for r in rows]
    width = max([13] + [len(h) for h in heads]) + 1
    lines = [
        "Consensus movement per episode (rises/falls of the overall consensus, topic reversals, turns with "
        "interleaved shifts between topics, party reactance):"
    ]
    for key in ("rises", "falls", "reversals", "interleaved", "reactance"):
        lines.append(f"{key:<11}" + "".join(f"{r[key]:>{width}.2f}" for r in rows))
    return "\n".join(lines)


__all__ = [
    "LLMMediatorFactory",
    "Parts",
    "PartyTeam",
    "format_movement",
    "llm_agreement_factory",
    "llm_behaviour_factory",
    "llm_extractor_factory",
    "llm_judge_factory",
    "llm_mediator_factory",
    "llm_party_factory",
    "movement",
    "release_budget",
]
