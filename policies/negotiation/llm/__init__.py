"""LLM parties, mediators and judges for the negotiation env (a re-export module).

The code lives under :mod:`policies.llm`: :mod:`policies.negotiation.llm.parties` (parties, the caller
defaults, :class:`PartyTeam`), :mod:`policies.negotiation.llm.mediator` (the mediator and its
strategies), :mod:`policies.negotiation.llm.judges` (attitude extractor, agreement and MI judges),
:mod:`policies.negotiation.llm.behaviour` (the release's behaviour judge of mediator lines) and
:mod:`policies.negotiation.llm.prompts` (the prompts).
"""

from __future__ import annotations

from policies.llm.caller import Answer, Ask
from policies.llm.errors import ReplyError
from policies.negotiation.llm.parties import (
    PARTY_STRATEGIES,
    InnerThoughts,
    LLMCaller,
    LLMParty,
    PartyStrategy,
    PartyTeam,
)
from policies.negotiation.llm.behaviour import LLMBehaviourJudge
from policies.negotiation.llm.judges import AGREEMENT_DIMENSIONS, LLMAgreementJudge, LLMAttitudeExtractor, LLMMIJudge
from policies.negotiation.llm.mediator import (
    MEDIATION_STRATEGIES,
    VARIANTS,
    LLMMediator,
    MediationStrategy,
    SocialMediatorLLM,
    consensus_status,
)
from policies.llm.parsing import extract_json

__all__ = [
    "AGREEMENT_DIMENSIONS",
    "MEDIATION_STRATEGIES",
    "PARTY_STRATEGIES",
    "VARIANTS",
    "Answer",
    "Ask",
    "InnerThoughts",
    "LLMAgreementJudge",
    "LLMAttitudeExtractor",
    "LLMBehaviourJudge",
    "LLMCaller",
    "LLMMIJudge",
    "LLMMediator",
    "LLMParty",
    "MediationStrategy",
    "PartyStrategy",
    "PartyTeam",
    "ReplyError",
    "SocialMediatorLLM",
    "consensus_status",
    "extract_json",
]
