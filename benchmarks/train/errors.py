"""The training adapters' named error."""

from __future__ import annotations

from tom_envs.errors import TomEnvsError

__all__ = ["TrainEnvError"]


class TrainEnvError(TomEnvsError, ValueError):
    """A training adapter used wrongly: an unknown task or split, a reply out of turn, a role without a
    model (the message says what to pass instead)."""
