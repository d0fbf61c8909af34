"""LLM parties, mediators and judges for the negotiation env (a re-export module).

The code lives under :mod:`policies.llm`: :mod:`policies.llm.negotiation` (parties, the caller
defaults, :class:`PartyTeam`), :mod:`policies.llm.negotiation_mediator` (the mediator and its
strategies), :mod:`policies.llm.negotiation_judges` (attitude extractor, agreement and MI judges)
and :mod:`policies.llm.negotiation_prompts` (the prompts).
"""

from __future__ import annotations

from policies.llm.caller import Answer, Ask
from policies.llm.errors import ReplyError
from policies.llm.negotiation import PARTY_STRATEGIES, InnerThoughts, LLMCaller, LLMParty, PartyStrategy, PartyTeam
from policies.llm.negotiation_judges import AGREEMENT_DIMENSIONS, LLMAgreementJudge, LLMAttitudeExtractor, LLMMIJudge
from policies.llm.negotiation_mediator import (MEDIATION_STRATEGIES, VARIANTS, LLMMediator, MediationStrategy,
                                               SocialMediatorLLM, consensus_status)
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
