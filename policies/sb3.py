"""Any trained stable-baselines3 model behind the Policy protocol, with literal ToM from a probe.

An SB3 agent has no prediction head for the ToM targets. Its predictions come from one of:

* a **probe** (``probe=``): an object with ``predict(feature) -> prediction`` fitted on the agent's
  own internal state -- the LSTM hidden state for sb3-contrib's ``RecurrentPPO``, the policy
  network's last latent layer for the feed-forward algorithms (:func:`agent_state`) -- on training
  episodes (``benchmarks.rl_probe`` fits it); at test time it reads that state only, never the truth;
* an auxiliary ``predictor`` policy watching the same episode (e.g. a count model);
* nothing (then it makes no predictions), or, on envs whose action *is* the prediction (QA envs,
  ``ToMSpec.action_is_prediction``), the action itself, which the recorder scores as it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import BasePolicy


def is_recurrent(model: Any) -> bool:
    """Whether ``model`` keeps an LSTM state (sb3-contrib's ``RecurrentPPO``)."""
    return hasattr(getattr(model, "policy", None), "lstm_actor")


def agent_state(model: Any, observation: np.ndarray, lstm_state: Any = None) -> np.ndarray:
    """The agent's internal state at a decision, as one float vector (what a probe reads).

    * ``RecurrentPPO``: the actor LSTM's hidden state ``h`` of its last layer after reading
      ``observation`` (pass the state ``model.predict`` returned for this step as ``lstm_state``);
    * ``PPO`` / ``A2C`` / ``MaskablePPO``: the actor's last latent layer
      (``mlp_extractor.forward_actor`` of the extracted features);
    * ``DQN``: the Q-network's last hidden layer (its layers but the output one).
    """
    import torch

    if is_recurrent(model):
        return np.asarray(lstm_state[0], dtype=np.float32)[-1].reshape(-1).copy()
    policy = model.policy
    with torch.no_grad():
        obs, _ = policy.obs_to_tensor(np.asarray(observation))
        if hasattr(policy, "mlp_extractor"):
            extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
            latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs, extractor))
        else:  # DQN
            q_net = policy.q_net
            latent = q_net.q_net[:-1](q_net.extract_features(obs, q_net.features_extractor))
    return latent.cpu().numpy().reshape(-1).astype(np.float32)


class SB3Policy(BasePolicy):
    """Acts with a trained SB3 model (PPO, A2C, DQN, or sb3-contrib's RecurrentPPO / MaskablePPO).

    Args:
        model: a trained SB3 model (``model.predict(obs, state, episode_start, deterministic)``).
        predictor: optional policy whose ``predict`` supplies the prediction (an auxiliary model).
        deterministic: act greedily (default) rather than sampling from the policy.
        name: label for results (defaults to the model's class name, lower case).
        probe: optional object with ``predict(feature) -> prediction`` (and a ``source`` string)
            reading :func:`agent_state`; takes the place of ``predictor``.
        mask: where the action mask sits in the observation vector (a ``slice``,
            :attr:`wrappers.VectorizeObservation.mask_slice`), for ``MaskablePPO``; None: no mask.

    Attributes:
        tom_source: where the predictions come from (rows show it), None when there are none.
        last_feature: the agent's state at the latest decision (:func:`agent_state`), kept when
            ``keep_features`` is set or a probe is given.
    """

    def __init__(
        self,
        model: Any,
        predictor: BasePolicy | None = None,
        deterministic: bool = True,
        name: str | None = None,
        probe: Any = None,
        mask: slice | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.predictor = predictor
        self.probe = probe
        self.mask = mask
        self.makes_predictions = predictor is not None or probe is not None
        self.deterministic = deterministic
        self.name = name or type(model).__name__.lower()
        if probe is not None:
            self.tom_source = getattr(probe, "source", "probe")
        else:
            self.tom_source = f"auxiliary {predictor.name}" if predictor is not None else None
        self.keep_features = probe is not None
        self.last_feature: np.ndarray | None = None
        self._state: Any = None
        self._episode_start = np.ones((1,), dtype=bool)
        self._decided: tuple[int, Any] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._state = None
        self._episode_start = np.ones((1,), dtype=bool)
        self._decided = None
        self.last_feature = None
        if self.predictor is not None:
            self.predictor.reset(seed)
        if seed is not None and not self.deterministic:
            self.model.set_random_seed(int(seed) % 2**32)  # sampling uses torch's generator (numpy takes seeds < 2**32)

    def _decide(self, observation: Any) -> tuple[int, Any]:
        """The action for ``observation`` and the LSTM state after it (computed once per step)."""
        if self._decided is None:
            obs = np.asarray(observation)
            kwargs: dict[str, Any] = {}
            if self.mask is not None:
                kwargs["action_masks"] = obs[self.mask] > 0.5
            action, state = self.model.predict(
                obs, state=self._state, episode_start=self._episode_start, deterministic=self.deterministic, **kwargs
            )
            if self.keep_features:
                self.last_feature = agent_state(self.model, obs, state)
            self._decided = (int(np.asarray(action).reshape(-1)[0]), state)
        return self._decided

    def act(self, observation: Any, info: dict) -> int:
        action, self._state = self._decide(observation)
        self._decided = None
        self._episode_start = np.zeros((1,), dtype=bool)
        return action

    def predict(self, observation: Any, info: dict) -> Any:
        if self.probe is not None:
            self._decide(observation)
            return self.probe.predict(self.last_feature)
        return None if self.predictor is None else self.predictor.predict(observation, info)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        if self.predictor is not None:
            self.predictor.observe(observation, reward, terminated, truncated, info)
