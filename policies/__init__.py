"""Agents that act in tom-envs environments, all behind one :class:`Policy` protocol.

The shared core is here (:mod:`policies.base`, :mod:`policies.sb3`, the LLM core in
:mod:`policies.llm`); each family's agents live in its own folder (:mod:`policies.matrix`,
:mod:`policies.persuasion`, :mod:`policies.common_ground`, :mod:`policies.negotiation`, or a
plugin's own package).
"""

from policies.base import BasePolicy, Policy, joint_code
from policies.sb3 import SB3Policy  # imports no SB3 itself

__all__ = ["BasePolicy", "Policy", "SB3Policy", "joint_code"]
