"""Literal- and functional-ToM scoring from the ToM contract of :mod:`tom_envs.tom`, for any family.

A :class:`ToMScorer` reads an env's ``tom_spec``, takes the predictor's predictions before a step,
asks the env for ``tom_truth()`` after it and keeps the counts; it touches no env internals and
knows nothing of Gymnasium or PettingZoo, so :class:`wrappers.ToMRecorder` (single-agent) and
:class:`wrappers.AECToMRecorder` (the predictor seat of an AEC env) share it.
A family adds its own metrics by subclassing it and naming the subclass in its ``ToMSpec.scorer``
(e.g. :class:`wrappers.matrix.scorer.MatrixToMScorer`: seed 004's ΔToM and ΔFunctional).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from tom_envs.errors import InvalidAction, TomEnvsError
from tom_envs.scoring import prediction_matches
from tom_envs.tom import ToMSpec, tom_spec_of


def _pct(hits: float, total: float) -> float | None:
    return 100.0 * hits / total if total else None


def parse_prediction(space: spaces.Space, value: Any, target: str) -> tuple[Any, np.ndarray | None]:
    """``(predicted value, probability vector or None)`` for one target, checked against its space.

    A ``Discrete`` target takes an index, or a probability vector over its values whose argmax
    (lowest index on ties) is the predicted value. Other spaces take any member of the space (an
    integer array may hold :data:`tom_envs.scoring.NOT_PREDICTED` in the cells it leaves out, if
    the target's space allows it).

    Raises:
        InvalidAction: the value is not a prediction of this target.
    """
    if isinstance(space, spaces.Discrete):
        lo, n = int(space.start), int(space.n)
        if type(value) is int and lo <= value < lo + n:  # the common case, without numpy
            return value, None
        if np.ndim(value) == 0:
            if (
                isinstance(value, (bool, np.bool_))
                or not isinstance(value, (int, np.integer))
                or not lo <= value < lo + n
            ):
                raise InvalidAction(
                    f"a prediction of {target!r} is an integer in {lo}..{lo + n - 1} or {n} probabilities "
                    f"summing to 1, got {value!r}"
                )
            return int(value), None
        try:
            p = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            p = np.empty(0)
        if p.shape != (n,) or not np.isfinite(p).all() or (p < 0).any() or not np.isclose(p.sum(), 1.0, atol=1e-6):
            raise InvalidAction(
                f"a predicted distribution of {target!r} is {n} non-negative probabilities summing to 1, got {value!r}"
            )
        return lo + int(np.flatnonzero(p >= p.max() - 1e-12)[0]), p
    candidate = (
        np.asarray(value) if isinstance(space, (spaces.MultiDiscrete, spaces.MultiBinary, spaces.Box)) else value
    )
    if not space.contains(candidate):
        raise InvalidAction(f"a prediction of {target!r} must be a member of {space}, got {value!r}")
    return candidate, None


class ToMScorer:
    """Scores one env's literal-ToM predictions and collects its functional outcome, per episode.

    Call :meth:`start` after every reset, :meth:`record_prediction` before a step (optional; with
    ``action_is_prediction`` the action is the prediction), :meth:`score` after every step and
    :meth:`summary` at the end. A prediction waits for the first step whose ``tom_truth()``
    resolves its target and is then scored (or dropped by the next :meth:`start`); a resolved
    target without a prediction counts as unpredicted, not as wrong.

    Per step, :meth:`score` returns ``round`` (1-based), each target name → its truth (None when
    that step did not resolve it), ``prediction`` and ``correct`` (one value for a single-target
    env, a dict by target otherwise; None where nothing was predicted) and, for a single
    ``Discrete`` target, ``prediction_prob`` (the probability a predicted distribution gave the
    truth). A prediction is correct when every element it predicts matches
    (:func:`tom_envs.scoring.prediction_matches`). :meth:`summary` holds ``rounds``, ``return``, ``tom_steps`` (steps with a scored
    prediction), ``tom_accuracy`` (ToM %: matching predicted elements / elements predicted),
    ``tom_correct`` (per step), ``tom_accuracy_by_target`` (multi-target envs),
    ``tom_accuracy_by_<group_by>`` (when the spec names a ``group_by`` info key) and ``outcome``
    (the env's ``tom_outcome()``).

    Args:
        env: an env keeping the ToM contract (wrapped or not; the unwrapped env is used).
    """

    def __init__(self, env: Any) -> None:
        self.spec: ToMSpec = tom_spec_of(env)
        self.env = getattr(env, "unwrapped", env)
        self._single = self.spec.target
        self._discrete = self._single is not None and isinstance(self.spec.targets[self._single], spaces.Discrete)
        self.start()

    @classmethod
    def for_env(cls, env: Any, **options: Any) -> "ToMScorer":
        """The scorer ``env``'s ``tom_spec`` names (``ToMSpec.scorer``, ``"module:Class"``), built
        with ``options`` (e.g. the matrix games' ``tom_response``), else this generic one.

        Raises:
            TomEnvsError: ``options`` given for an env scored by the generic scorer, which takes none.
        """
        base = getattr(env, "unwrapped", env)
        spec = tom_spec_of(base)
        options = {k: v for k, v in options.items() if v is not None}
        if spec.scorer is None:
            if options:
                raise TomEnvsError(
                    f"{type(base).__name__} is scored by the generic ToMScorer, which takes no "
                    f"options; got {', '.join(sorted(options))} (leave them out)"
                )
            return cls(base)
        from tom_envs.family import load_object

        return load_object(spec.scorer)(base, **options)

    # ------------------------------------------------------------------ episode
    def start(self) -> dict[str, Any]:
        """Clear the episode's state (after a reset); returns what is known at the start (the
        recorder keeps it as ``start_record``, out of band: it may name hidden state)."""
        self._pending: dict[str, tuple[Any, np.ndarray | None]] = {}
        self._t = 0
        self._return = 0.0
        self._correct: list[Any] = []
        self._steps_predicted = 0
        self._by_target = {name: [0, 0] for name in self.spec.targets}
        self._by_group: dict[Any, list[int]] = {}
        return {}

    def record_prediction(self, prediction: Any) -> None:
        """The predictor's prediction for the coming step; None withdraws a pending one.

        A single-target env takes the bare value (or ``{target: value}``); a multi-target env
        takes ``{target: value}`` for any subset of its targets.

        Raises:
            InvalidAction: an unknown target, or a value outside the target's space.
        """
        if prediction is None:
            self._pending = {}
            return
        if not isinstance(prediction, Mapping):
            if self._single is None:
                raise InvalidAction(
                    f"this env has several targets ({', '.join(self.spec.targets)}); "
                    "predict them as a dict {target: value}"
                )
            prediction = {self._single: prediction}
        unknown = [k for k in prediction if k not in self.spec.targets]
        if unknown:
            raise InvalidAction(
                f"unknown prediction targets {unknown}; this env's targets are {list(self.spec.targets)}"
            )
        self._pending = {
            k: parse_prediction(self.spec.targets[k], v, k) for k, v in prediction.items() if v is not None
        }

    def add_reward(self, reward: float) -> None:
        """Count the reward of a step that resolved no target (AEC envs) into the summary's ``return``."""
        self._return += float(reward)

    def score(self, reward: float = 0.0, action: Any = None, info: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Score the step just taken against the env's ``tom_truth()``; returns the step record."""
        truth = self.env.tom_truth()
        single = self._single
        if self.spec.action_is_prediction and action is not None:
            if single not in self._pending:
                try:
                    self._pending[single] = parse_prediction(self.spec.targets[single], action, single)
                except InvalidAction:  # an action outside the target's space is scored wrong by the env itself
                    self._pending[single] = (int(np.asarray(action)), None)
            if single not in truth:  # an unscored question (a filler): its answer predicts nothing later
                self._pending.pop(single, None)
        self._t += 1
        self._return += float(reward)
        group = None if self.spec.group_by is None or info is None else info.get(self.spec.group_by)
        if single is not None:
            pred, correct, prob = self._take(single, truth, group)
            self._correct.append(correct)
            self._steps_predicted += correct is not None
            record = {"round": self._t, single: truth.get(single), "prediction": pred, "correct": correct}
            if self._discrete:
                record["prediction_prob"] = prob
            return record
        record = {"round": self._t, **{name: truth.get(name) for name in self.spec.targets}}
        taken = {name: self._take(name, truth, group) for name in self.spec.targets if name in truth}
        record["prediction"] = {name: t[0] for name, t in taken.items()}
        record["correct"] = {name: t[1] for name, t in taken.items()}
        self._correct.append(dict(record["correct"]))
        self._steps_predicted += any(c is not None for c in record["correct"].values())
        return record

    def _take(self, name: str, truth: Mapping[str, Any], group: Any) -> tuple[Any, bool | None, float | None]:
        """Score the pending prediction of ``name`` if this step resolved it: (prediction, correct, prob)."""
        if name not in truth or name not in self._pending:
            return None, None, None
        pred, dist = self._pending.pop(name)
        value = truth[name]
        if type(pred) is int and type(value) is int:  # the common case, without numpy
            hits, total = int(pred == value), 1
        else:
            hits, total = prediction_matches(pred, value)
        if not total:  # a partial prediction that covers nothing this step resolved
            return None, None, None
        counts = self._by_target[name]
        counts[0] += hits
        counts[1] += total
        if group is not None:
            counts = self._by_group.setdefault(group, [0, 0])
            counts[0] += hits
            counts[1] += total
        prob = None if dist is None else float(dist[int(value) - int(self.spec.targets[name].start)])
        return pred, hits == total, prob

    def summary(self) -> dict[str, Any]:
        """Literal-ToM accuracy and the env's functional outcome for the episode so far."""
        hits = sum(h for h, _ in self._by_target.values())
        total = sum(n for _, n in self._by_target.values())
        out: dict[str, Any] = {
            "rounds": self._t,
            "return": self._return,
            "tom_steps": self._steps_predicted,
            "tom_accuracy": _pct(hits, total),
            "tom_correct": list(self._correct),
        }
        if self._single is None:
            out["tom_accuracy_by_target"] = {k: _pct(h, n) for k, (h, n) in self._by_target.items()}
        if self.spec.group_by is not None:
            out[f"tom_accuracy_by_{self.spec.group_by}"] = {
                str(g): _pct(h, n) for g, (h, n) in sorted(self._by_group.items(), key=lambda kv: str(kv[0]))
            }
        out["outcome"] = dict(self.env.tom_outcome())
        return out
