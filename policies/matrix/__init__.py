"""The matrix games' agents: scripted references, the tabular RMax agent (004) and, in
:mod:`policies.matrix.llm`, the LLM strategies of 004's prompting conditions."""

from policies.matrix.scripted import FixedActionPolicy, OracleBestResponsePolicy, PartnerPolicy, RandomPolicy
from policies.matrix.tabular import PartnerCountModel, TabularRMaxPolicy

__all__ = [
    "FixedActionPolicy",
    "OracleBestResponsePolicy",
    "PartnerCountModel",
    "PartnerPolicy",
    "RandomPolicy",
    "TabularRMaxPolicy",
]
