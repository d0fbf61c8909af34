"""An LLM in the matrix games: 004's prompting strategies (:mod:`~policies.matrix.llm.strategies`),
the batched policy (:mod:`~policies.matrix.llm.policy`), the game texts and the context
experiments, all on the shared LLM core (:mod:`policies.llm`)."""

from policies.matrix.llm.policy import LLMMatrixPolicy, make_llm_policy
from policies.matrix.llm.strategies import STRATEGIES, build_strategy

__all__ = ["STRATEGIES", "LLMMatrixPolicy", "build_strategy", "make_llm_policy"]
