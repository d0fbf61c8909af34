"""The six persuasion principles of seed 001 (Table 3) and the error for a malformed persona.

Shared by live persuasion v1 (:mod:`~tom_envs.persuasion.mind`, the reader, the planners, both envs)
and its agents. The principle index is the persuader's action; ``len(PRINCIPLES)`` stands for
"no principle" where a module needs one.
"""

from __future__ import annotations

from tom_envs.errors import TomEnvsError

PRINCIPLES: tuple[str, ...] = ("reciprocity", "scarcity", "consensus", "authority", "commitment", "liking")


class InvalidPersona(TomEnvsError, ValueError):
    """A persona or persona family is malformed."""


__all__ = ["InvalidPersona", "PRINCIPLES"]
