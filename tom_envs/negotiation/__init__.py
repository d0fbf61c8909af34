"""Multi-party negotiation with a mediator seat (seed 002, ProMediate).

* :class:`Scenario` -- the scenario schema and loaders (``from_file``, ``from_promediate``,
  ``builtin``); six built-in cases of 002 Appendix B.1 (:data:`BUILTIN_SCENARIOS`).
* :class:`NegotiationEnv` -- the PettingZoo AEC env (``parallel_env`` for the parallel view);
  :class:`NegotiationEnvV2` -- ``tom/Negotiation-v2``: the release's turn order and opening line.
* :mod:`~tom_envs.negotiation.metrics` -- CC, TLE, RL, ME and MI.
* :class:`KeywordAttitudeExtractor` -- rule-based attitudes from text (the env's
  ``attitude_extractor=`` hook; :mod:`~tom_envs.negotiation.consensus`).
"""

from tom_envs.negotiation.consensus import KeywordAttitudeExtractor
from tom_envs.negotiation.errors import (
    AttitudeExtractionError,
    NegotiationActionError,
    NegotiationConfigError,
    NegotiationError,
    PromediateFormatWarning,
    ScenarioError,
)
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, CONFLICT_MODES, DIFFICULTY_MODES, Scenario

__all__ = [
    "BUILTIN_SCENARIOS",
    "CONFLICT_MODES",
    "DIFFICULTY_MODES",
    "AttitudeExtractionError",
    "KeywordAttitudeExtractor",
    "NegotiationActionError",
    "NegotiationConfigError",
    "NegotiationEnv",
    "NegotiationEnvV2",
    "NegotiationError",
    "PromediateFormatWarning",
    "Scenario",
    "ScenarioError",
    "parallel_env",
]


def __getattr__(name: str):  # the env (and PettingZoo) only when asked for
    if name in ("NegotiationEnv", "parallel_env"):
        from tom_envs.negotiation import env as _env

        return getattr(_env, name)
    if name == "NegotiationEnvV2":
        from tom_envs.negotiation.env_v2 import NegotiationEnvV2

        return NegotiationEnvV2
    raise AttributeError(name)
