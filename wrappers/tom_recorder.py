"""The one ToM recorder: literal- and functional-ToM scores of any tom-envs env, as an episode runs.

:class:`ToMRecorder` wraps a Gymnasium env, :class:`AECToMRecorder` the predictor seat of a
PettingZoo AEC env; both score with the same :class:`~wrappers.tom_scorer.ToMScorer`, built from
the env's ToM contract (:mod:`tom_envs.tom`, docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from pettingzoo.utils.wrappers import BaseWrapper

from tom_envs.errors import TomEnvsError
from tom_envs.tom import ToMContractError
from wrappers.tom_scorer import ToMScorer


def _scorer(env: Any, who: str, tom_response: str | None = None) -> ToMScorer:
    try:
        return ToMScorer.for_env(env, tom_response)
    except ToMContractError as err:
        raise TomEnvsError(f"{who} needs an env that keeps the ToM contract (a matrix-game env such as tom/RPS-v0, a "
                           f"QA env, any tom/ id): {err}") from None


class ToMRecorder(gym.Wrapper):
    """Scores the literal-ToM predictions and the functional outcome of any tom-envs Gymnasium env.

    Before a step, hand the agent's prediction of the env's ToM target(s) to
    :meth:`record_prediction` (matrix games: the partner's action in the coming round, as an
    index or a probability vector whose argmax, lowest index on ties, is the prediction; QA envs
    need none: the answer chosen is the prediction). After the step the recorder asks the
    unwrapped env for ``tom_truth()`` and puts the step's record in ``info["tom"]``; when the
    episode ends, ``info["tom"]["episode"]`` holds the episode's summary (see
    :class:`~wrappers.tom_scorer.ToMScorer`). A reset's ``info["tom"]`` holds what is known at
    the start. State is cleared on reset. An env whose ``tom_spec.reveal`` is ``"episode"`` (the
    QA envs by default: their answers correlate within a dialogue) returns no truth before the
    episode ends, and neither does the recorder: until then a step's ``info["tom"]`` holds only
    its ``round``; the last step's holds its own record, ``steps`` (every step's record, in
    order) and ``episode``.

    For the matrix games (:class:`~wrappers.tom_scorer.MatrixToMScorer`) a step's ``info["tom"]``
    holds ``round``, ``partner_action``, ``prediction`` (or None), ``correct``, ``tom_regret``,
    ``tom_regret_stage``, ``tom_regret_reciprocal``, ``tom_regret_action_value``,
    ``prediction_prob``, ``reward``, ``optimal_reward`` and ``regret`` (None for black-box
    partners); the episode summary ``partner``, ``rounds``, ``return``, ``optimal_return``,
    ``regret`` (ΔFunctional), ``regret_per_step``, ``tom_steps``, ``tom_accuracy`` (ToM %),
    ``tom_response``, ``tom_regret`` (ΔToM), ``tom_regret_per_step``, ``regrets``,
    ``tom_correct``, ``tom_regrets``, and ``tom_regret_<r>``, ``tom_regret_per_step_<r>``,
    ``tom_regrets_<r>`` for each ΔToM response r (``stage``, ``reciprocal``, ``action_value``);
    the reset's ``partner`` and ``optimal_return``. The unsuffixed ΔToM keys follow
    ``tom_response``.

    Args:
        env: a (possibly wrapped) env whose unwrapped env keeps the ToM contract.
        tom_response: matrix games only: the ΔToM response of the unsuffixed keys
            (``"stage"``, ``"reciprocal"`` or ``"action_value"``; None: ``"reciprocal"``, the one
            that reproduces seed 004's tables; docs/architecture.md, "Metric definitions").

    Raises:
        TomEnvsError: the env states no ToM targets, or ``tom_response`` is given for an env that
            is not a matrix game.
        UnknownToMResponse: ``tom_response`` names no response.
    """

    key = "tom"

    def __init__(self, env: gym.Env, tom_response: str | None = None) -> None:
        super().__init__(env)
        self.scorer = _scorer(env, "ToMRecorder", tom_response)
        self.tom_spec = self.scorer.spec
        self._held: list[dict[str, Any]] = []

    @property
    def game(self) -> Any:
        """The matrix game of a matrix-game env (kept for callers of the matrix-only recorder)."""
        return self.env.unwrapped.game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        info[self.key] = self.scorer.start()
        self._held = []  # the step records of a reveal="episode" env, until its end
        return obs, info

    def record_prediction(self, prediction: Any) -> None:
        """The agent's prediction for the coming step (None: no prediction)."""
        self.scorer.record_prediction(prediction)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        record = self.scorer.score(reward, action, info)
        if self.tom_spec.reveal == "episode":
            self._held.append(record)
            if not (terminated or truncated):
                info[self.key] = {"round": record["round"]}
                return obs, reward, terminated, truncated, info
            record = {**record, "steps": list(self._held)}
        if terminated or truncated:
            record["episode"] = self.scorer.summary()
        info[self.key] = record
        return obs, reward, terminated, truncated, info

    def episode_summary(self) -> dict[str, Any]:
        """The summary of the episode so far (the dict the last step puts in ``info``)."""
        return self.scorer.summary()


class AECToMRecorder(BaseWrapper):
    """Scores the predictor seat of a PettingZoo AEC env (the ``predictor`` of its ``tom_spec``).

    Before the predictor's step, hand its prediction to :meth:`record_prediction`. After every
    step whose ``tom_truth()`` resolves a target, the record is scored (a prediction waits for
    the step that resolves its target, whoever acts in it) and becomes :attr:`tom_info`; while
    the predictor is selected, :meth:`last` returns its info with ``"tom"`` added (a copy: the
    env's own ``infos`` are not touched). When no agent is left, ``tom_info["episode"]`` holds
    the episode summary, also available from :meth:`episode_summary`. ``return`` in the summary
    is the predictor's summed reward. State is cleared on reset.

    Args:
        env: an AEC env whose unwrapped env keeps the ToM contract with a ``predictor``.

    Raises:
        TomEnvsError: the env states no ToM targets, or no predictor seat.
    """

    key = "tom"

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.scorer = _scorer(env, "AECToMRecorder")
        self.tom_spec = self.scorer.spec
        if self.tom_spec.predictor is None:
            raise TomEnvsError(f"{type(env.unwrapped).__name__}'s tom_spec names no predictor seat; AECToMRecorder "
                               "scores the seat named in ToMSpec(predictor=...)")
        if self.tom_spec.reveal != "step":
            raise TomEnvsError(f"{type(env.unwrapped).__name__}'s tom_spec reveals its truths only when the episode "
                               "ends (reveal='episode'); AECToMRecorder returns them step by step")
        self.predictor = self.tom_spec.predictor
        self.tom_info: dict[str, Any] = {}
        self.records: list[dict[str, Any]] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.tom_info = self.scorer.start()
        self.records = []

    def record_prediction(self, prediction: Any) -> None:
        """The predictor's prediction of the target(s) the coming steps resolve (None: none)."""
        self.scorer.record_prediction(prediction)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        acting = self.tom_spec.action_is_prediction and agent == self.predictor
        self.env.step(action)
        reward = float(self.env.rewards.get(self.predictor, 0.0)) if hasattr(self.env, "rewards") else 0.0
        if self.env.unwrapped.tom_truth():
            infos = getattr(self.env, "infos", {})
            self.tom_info = self.scorer.score(reward, action if acting else None, infos.get(agent))
            self.records.append(self.tom_info)
        else:
            self.scorer.add_reward(reward)
        if not self.env.agents:
            self.tom_info = {**self.tom_info, "episode": self.scorer.summary()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.last(observe)
        if self.env.agent_selection == self.predictor:
            info = {**info, self.key: self.tom_info}
        return obs, reward, terminated, truncated, info

    def episode_summary(self) -> dict[str, Any]:
        """The predictor's scores for the episode so far."""
        return self.scorer.summary()
