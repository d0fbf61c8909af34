"""Registers the hidden-role ids (``Family.envs``: ``import tom_envs`` imports this module once the
family is installed, or :func:`tom_envs.family.refresh` does in a running process)."""

from __future__ import annotations

import tom_envs

tom_envs.register(
    "tom/HiddenRole-v0",
    "hidden_role.env:HiddenRoleEnv",
    kind="aec",
    family="hidden_role",
    summary="hidden-role game: the detective seat finds the impostor from what the others say",
)
