"""Any trained stable-baselines3 model behind the Policy protocol."""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import BasePolicy


class SB3Policy(BasePolicy):
    """Acts with a trained SB3 model (PPO, A2C, DQN, or sb3-contrib's RecurrentPPO).

    SB3 agents have no model of the partner, so their literal-ToM predictions, if any, come
    from an auxiliary ``predictor`` policy (e.g. :class:`~policies.matrix.tabular.PartnerCountModel`)
    that watches the same episode; :attr:`tom_source` says so in results.

    Args:
        model: a trained SB3 model (``model.predict(obs, state, episode_start, deterministic)``).
        predictor: optional policy whose ``predict`` supplies the prediction.
        deterministic: act greedily (default) rather than sampling from the policy.
        name: label for results (defaults to the model's class name, lower case).
    """

    def __init__(self, model: Any, predictor: BasePolicy | None = None, deterministic: bool = True,
                 name: str | None = None) -> None:
        super().__init__()
        self.model = model
        self.predictor = predictor
        self.makes_predictions = predictor is not None
        self.deterministic = deterministic
        self.name = name or type(model).__name__.lower()
        self.tom_source = f"auxiliary {predictor.name}" if predictor is not None else None
        self._state: Any = None
        self._episode_start = np.ones((1,), dtype=bool)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._state = None
        self._episode_start = np.ones((1,), dtype=bool)
        if self.predictor is not None:
            self.predictor.reset(seed)
        if seed is not None and not self.deterministic:
            self.model.set_random_seed(seed)  # sampling uses torch's generator

    def act(self, observation: Any, info: dict) -> int:
        action, self._state = self.model.predict(
            np.asarray(observation), state=self._state, episode_start=self._episode_start, deterministic=self.deterministic
        )
        self._episode_start = np.zeros((1,), dtype=bool)
        return int(np.asarray(action).reshape(-1)[0])

    def predict(self, observation: Any, info: dict) -> Any:
        return None if self.predictor is None else self.predictor.predict(observation, info)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        if self.predictor is not None:
            self.predictor.observe(observation, reward, terminated, truncated, info)
