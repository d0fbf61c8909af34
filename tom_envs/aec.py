"""What every PettingZoo AEC env of tom-envs does at the start of ``step``."""

from __future__ import annotations

from typing import Any

from tom_envs.errors import EpisodeEnded, ResetNeeded


def begin_step(env: Any, action: Any, over: str) -> str | None:
    """The agent acting now, after the checks of an AEC ``step``; None when the step is done already.

    Raises :class:`~tom_envs.errors.ResetNeeded` before the first ``reset`` (``env._started``
    false) and :class:`~tom_envs.errors.EpisodeEnded` with the message ``over`` when no agent is
    left. A terminated or truncated agent's step is PettingZoo's dead step (returns None).
    Otherwise the agent's cumulative reward and this step's rewards are cleared.
    """
    if not env._started:
        raise ResetNeeded("step() was called before reset(); call env.reset(seed=...) first.")
    if not env.agents:
        raise EpisodeEnded(over)
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env._was_dead_step(action)
        return None
    env._cumulative_rewards[agent] = 0.0
    env.rewards = {a: 0.0 for a in env.agents}
    return agent
