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


def _scorer(env: Any, who: str, options: dict[str, Any]) -> ToMScorer:
    try:
        return ToMScorer.for_env(env, **options)
    except ToMContractError as err:
        raise TomEnvsError(f"{who} needs an env that keeps the ToM contract (any tom/ id): {err}") from None


def _check_started(recorder: Any, who: str) -> None:
    if not recorder._started:
        raise TomEnvsError(
            f"{who}.record_prediction() was called before reset(): there is no episode to score it "
            "in; call reset() first, then record the prediction for the coming step"
        )


class ToMRecorder(gym.Wrapper):
    """Scores the literal-ToM predictions and the functional outcome of any tom-envs Gymnasium env.

    Before a step, hand the agent's prediction of the env's ToM target(s) to
    :meth:`record_prediction` (matrix games: the partner's action in the coming round, as an
    index or a probability vector whose argmax, lowest index on ties, is the prediction; QA envs
    need none: the answer chosen is the prediction). After the step the recorder asks the
    unwrapped env for ``tom_truth()`` and scores the step.

    **The scorer is out of band** (the information rule, docs/architecture.md): what the recorder
    computes never enters what the policy being scored receives while the episode runs. A step's
    record goes to :attr:`records` (every step's, in order) and :attr:`last_record`, which the
    runner reads from the recorder itself; the ``info`` returned by ``reset`` and by every step but
    the last carries nothing of the recorder's. Only the episode's last step, when every fact is
    over and public, returns ``info["tom"] = {"steps": records, "episode": summary}`` (the way
    Gymnasium's ``RecordEpisodeStatistics`` returns ``info["episode"]``). What is known at the
    start (a matrix game's drawn partner and optimal return) is :attr:`start_record`, and in the
    summary. State is cleared on reset.

    A step's record holds the generic scorer's keys (``step``, the prediction(s), the truth,
    ``correct``) and whatever the family's scorer adds (``ToMSpec.scorer``; e.g. the matrix games'
    :class:`~wrappers.matrix.scorer.MatrixToMScorer` adds ΔToM under each response and regret).

    Args:
        env: a (possibly wrapped) env whose unwrapped env keeps the ToM contract.
        **scorer_options: options of the family's scorer (None values are left out), e.g. the
            matrix games' ``tom_response`` (the ΔToM response of the unsuffixed keys:
            ``"stage"``, ``"reciprocal"`` or ``"action_value"``; docs/architecture.md).

    Raises:
        TomEnvsError: the env states no ToM targets, or ``scorer_options`` are given for an env
            scored by the generic scorer (which takes none); the family's scorer raises its own
            errors for bad options.
    """

    key = "tom"

    def __init__(self, env: gym.Env, **scorer_options: Any) -> None:
        super().__init__(env)
        self.scorer = _scorer(env, "ToMRecorder", scorer_options)
        self.tom_spec = self.scorer.spec
        self.records: list[dict[str, Any]] = []
        self.last_record: dict[str, Any] | None = None
        self.start_record: dict[str, Any] = {}
        self._predicted = False  # a prediction is recorded for the coming step
        self._started = False  # reset() was called (a prediction before it would be scored against nothing)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.start_record = self.scorer.start()
        self.records, self.last_record = [], None
        self._predicted = False
        self._started = True
        return obs, info

    def record_prediction(self, prediction: Any) -> None:
        """The agent's prediction for the coming step (None withdraws a recorded one).

        Raises:
            TomEnvsError: a second prediction for the same step (withdraw the first with None), or a
                prediction before the first ``reset()``.
        """
        _check_started(self, "ToMRecorder")
        if prediction is not None and self._predicted:
            raise TomEnvsError(
                "a prediction for this step is already recorded; record one per step, or withdraw "
                "it first with record_prediction(None)"
            )
        self.scorer.record_prediction(prediction)
        self._predicted = prediction is not None

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        self._predicted = False
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.last_record = self.scorer.score(reward, action, info)
        self.records.append(self.last_record)
        if terminated or truncated:
            info[self.key] = {"steps": list(self.records), "episode": self.scorer.summary()}
        return obs, reward, terminated, truncated, info

    def episode_summary(self) -> dict[str, Any]:
        """The summary of the episode so far (the dict the last step puts in ``info["tom"]["episode"]``)."""
        return self.scorer.summary()


class AECToMRecorder(BaseWrapper):
    """Scores the predictor seat of a PettingZoo AEC env (the ``predictor`` of its ``tom_spec``).

    Before the predictor's step, hand its prediction to :meth:`record_prediction`. After every
    step whose ``tom_truth()`` resolves a target, the record is scored (a prediction waits for
    the step that resolves its target, whoever acts in it) and appended to :attr:`records`
    (:attr:`last_record` is the latest). The scorer is out of band, as in :class:`ToMRecorder`:
    nothing of the recorder's is added to what any seat observes (:meth:`last`, ``infos``);
    the runner reads :attr:`records` and :meth:`episode_summary` from the recorder. ``return`` in
    the summary is the predictor's summed reward. State is cleared on reset.

    Args:
        env: an AEC env whose unwrapped env keeps the ToM contract with a ``predictor``.

    Raises:
        TomEnvsError: the env states no ToM targets, or no predictor seat.
    """

    key = "tom"

    def __init__(self, env: Any, **scorer_options: Any) -> None:
        super().__init__(env)
        self.scorer = _scorer(env, "AECToMRecorder", scorer_options)
        self.tom_spec = self.scorer.spec
        if self.tom_spec.predictor is None:
            raise TomEnvsError(
                f"{type(env.unwrapped).__name__}'s tom_spec names no predictor seat; AECToMRecorder "
                "scores the seat named in ToMSpec(predictor=...)"
            )
        self.predictor = self.tom_spec.predictor
        self.records: list[dict[str, Any]] = []
        self.last_record: dict[str, Any] | None = None
        self.start_record: dict[str, Any] = {}
        self._started = False  # reset() was called

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.start_record = self.scorer.start()
        self.records, self.last_record = [], None
        self._started = True

    def record_prediction(self, prediction: Any) -> None:
        """The predictor's prediction of the target(s) the coming steps resolve (None: none).

        Raises:
            TomEnvsError: a prediction before the first ``reset()``.
        """
        _check_started(self, "AECToMRecorder")
        self.scorer.record_prediction(prediction)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        acting = self.tom_spec.action_is_prediction and agent == self.predictor
        self.env.step(action)
        reward = float(self.env.rewards.get(self.predictor, 0.0)) if hasattr(self.env, "rewards") else 0.0
        if self.env.unwrapped.tom_truth():
            infos = getattr(self.env, "infos", {})
            self.last_record = self.scorer.score(reward, action if acting else None, infos.get(agent))
            self.records.append(self.last_record)
        else:
            self.scorer.add_reward(reward)

    def episode_summary(self) -> dict[str, Any]:
        """The predictor's scores for the episode so far."""
        return self.scorer.summary()
