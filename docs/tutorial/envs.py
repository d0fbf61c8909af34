"""Step 2 of the tutorial: register the family's ids (``Family.envs`` names this module; ``import tom_envs``
imports it once the family is installed)."""

from __future__ import annotations

import tom_envs

tom_envs.register(
    "tom/FalseBelief-v0",
    "false_belief.env:FalseBeliefEnv",
    family="false_belief",
    summary="Sally-Anne: predict where Sally looks for the marble while she steps in and out",
)
