"""Literal- and functional-ToM scoring from the ToM contract of :mod:`tom_envs.tom`, for any family.

A :class:`ToMScorer` reads an env's ``tom_spec``, takes the predictor's predictions before a step,
asks the env for ``tom_truth()`` after it and keeps the counts; it touches no env internals and
knows nothing of Gymnasium or PettingZoo, so :class:`wrappers.ToMRecorder` (single-agent) and
:class:`wrappers.AECToMRecorder` (the predictor seat of an AEC env) share it.
:class:`MatrixToMScorer` adds seed 004's ΔToM and ΔFunctional for the matrix games.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from tom_envs.errors import InvalidAction, TomEnvsError
from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES, check_tom_response
from tom_envs.matrix.oracle import action_value_costs
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
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not lo <= value < lo + n:
                raise InvalidAction(f"a prediction of {target!r} is an integer in {lo}..{lo + n - 1} or {n} probabilities "
                                    f"summing to 1, got {value!r}")
            return int(value), None
        try:
            p = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            p = np.empty(0)
        if p.shape != (n,) or not np.isfinite(p).all() or (p < 0).any() or not np.isclose(p.sum(), 1.0, atol=1e-6):
            raise InvalidAction(f"a predicted distribution of {target!r} is {n} non-negative probabilities summing to 1, "
                                f"got {value!r}")
        return lo + int(np.flatnonzero(p >= p.max() - 1e-12)[0]), p
    candidate = np.asarray(value) if isinstance(space, (spaces.MultiDiscrete, spaces.MultiBinary, spaces.Box)) else value
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
    def for_env(cls, env: Any, tom_response: str | None = None) -> "ToMScorer":
        """The scorer ``env``'s ``tom_spec`` names (``ToMSpec.scorer``: the matrix games name
        :class:`MatrixToMScorer`), else this generic one.

        ``tom_response`` (matrix games only) names the response of ΔToM's default keys
        (:data:`tom_envs.matrix.games.TOM_RESPONSES`; None: the default, ``reciprocal``).

        Raises:
            TomEnvsError: ``tom_response`` given for an env whose scorer takes none.
            UnknownToMResponse: ``tom_response`` names no response.
        """
        base = getattr(env, "unwrapped", env)
        spec = tom_spec_of(base)
        if spec.scorer is None:
            if tom_response is not None:
                raise TomEnvsError(f"tom_response={tom_response!r} chooses ΔToM's response in the matrix games; "
                                   f"{type(base).__name__} is not one (leave tom_response out)")
            return cls(base)
        from tom_envs.family import load_object

        scorer = load_object(spec.scorer)
        return scorer(base) if tom_response is None else scorer(base, tom_response)

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
                raise InvalidAction(f"this env has several targets ({', '.join(self.spec.targets)}); "
                                    "predict them as a dict {target: value}")
            prediction = {self._single: prediction}
        unknown = [k for k in prediction if k not in self.spec.targets]
        if unknown:
            raise InvalidAction(f"unknown prediction targets {unknown}; this env's targets are {list(self.spec.targets)}")
        self._pending = {k: parse_prediction(self.spec.targets[k], v, k) for k, v in prediction.items() if v is not None}

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
            out[f"tom_accuracy_by_{self.spec.group_by}"] = {str(g): _pct(h, n) for g, (h, n) in sorted(
                self._by_group.items(), key=lambda kv: str(kv[0]))}
        out["outcome"] = dict(self.env.tom_outcome())
        return out


class MatrixToMScorer(ToMScorer):
    """Seed 004's metrics for the matrix games: ToM %, ΔToM and ΔFunctional (docs/architecture.md).

    ΔToM charges every wrong prediction with the cost of acting on it, under each response of
    :data:`tom_envs.matrix.games.TOM_RESPONSES`: ``stage`` (best-respond to the prediction in the
    stage game), ``reciprocal`` (the stage game with a one-step look-ahead at a partner that
    answers in kind) and ``action_value`` (the exact T-step action values under the partner
    automaton at that round and partner state; None for black-box partners). The cost tables are
    computed once per game and partner; a step only looks them up.

    Adds to each step record ``tom_regret`` (the cost under ``tom_response``), ``tom_regret_<r>``
    for each response r, ``reward``, ``optimal_reward`` and ``regret`` (r*_t - r_t against the
    exact optimal response's expected rewards; None for black-box partners). The reset record is
    ``partner`` and ``optimal_return``; the summary is ``partner``, ``rounds``, ``return``,
    ``optimal_return``, ``regret`` (ΔFunctional), ``regret_per_step``, ``tom_steps``,
    ``tom_accuracy``, ``tom_response`` (the response of the default keys), ``tom_regret`` (ΔToM),
    ``tom_regret_per_step``, the per-round lists ``regrets``, ``tom_correct``, ``tom_regrets``,
    and for each response r ``tom_regret_<r>``, ``tom_regret_per_step_<r>``, ``tom_regrets_<r>``.
    If an episode is truncated early, the regrets cover the rounds played.

    Args:
        env: a matrix-game env (wrapped or not).
        tom_response: the response of the default ΔToM keys (``tom_regret``, ...).

    Raises:
        UnknownToMResponse: ``tom_response`` names no response.
    """

    def __init__(self, env: Any, tom_response: str = DEFAULT_TOM_RESPONSE) -> None:
        self.tom_response = check_tom_response(tom_response)
        game = getattr(env, "unwrapped", env).game
        self._game = game
        self._stage = game.tom_cost_table("stage").tolist()
        self._reciprocal = game.tom_cost_table("reciprocal").tolist()
        self._default = TOM_RESPONSES.index(self.tom_response)
        self._av_tables: dict[Any, list] = {}  # oracle -> its action_value costs as nested lists
        super().__init__(env)

    def start(self) -> dict[str, Any]:
        super().start()
        partner = getattr(self.env, "partner", None)
        self._oracle = getattr(self.env, "oracle", None) if partner is not None else None
        self._partner_name = None if partner is None else partner.name
        self._partner_state = getattr(self.env, "partner_state", None)
        self._av = None
        if self._oracle is not None and self._partner_state is not None:
            if self._oracle not in self._av_tables:  # one oracle per partner of the env's population
                self._av_tables[self._oracle] = action_value_costs(self._game, self._oracle).tolist()
            self._av = self._av_tables[self._oracle]
        self._regrets: list[float] = []
        self._costs: tuple[list[float | None], ...] = ([], [], [])  # per round, in the order of TOM_RESPONSES
        return {"partner": self._partner_name, "optimal_return": None if self._oracle is None else self._oracle.optimal_return}

    def score(self, reward: float = 0.0, action: Any = None, info: Mapping[str, Any] | None = None) -> dict[str, Any]:
        t, s = self._t, self._partner_state
        record = super().score(reward, action, info)
        self._partner_state = getattr(self.env, "partner_state", None)
        reward = float(reward)
        optimal = None if self._oracle is None else float(self._oracle.optimal_rewards[t])
        regret = None if optimal is None else optimal - reward
        if regret is not None:
            self._regrets.append(regret)
        b_hat, b = record["prediction"], record["partner_action"]
        if b_hat is None:
            step: tuple[float | None, ...] = (None, None, None)
        else:  # table lookups only: the same order as TOM_RESPONSES
            step = (self._stage[b_hat][b], self._reciprocal[b_hat][b],
                    None if self._av is None or s is None else self._av[t][s][b_hat][b])
        stage, reciprocal, action_value = self._costs
        stage.append(step[0])
        reciprocal.append(step[1])
        action_value.append(step[2])
        record.update(reward=reward, optimal_reward=optimal, regret=regret, tom_regret=step[self._default],
                      tom_regret_stage=step[0], tom_regret_reciprocal=step[1], tom_regret_action_value=step[2])
        return record

    def summary(self) -> dict[str, Any]:
        rounds = self._t
        predicted = [c for c in self._correct if c is not None]
        has_oracle = self._oracle is not None
        regret = float(sum(self._regrets)) if has_oracle else None
        n_pred = len(predicted)
        out = {
            "partner": self._partner_name,
            "rounds": rounds,
            "return": self._return,
            "optimal_return": float(self._oracle.optimal_rewards[:rounds].sum()) if has_oracle else None,
            "regret": regret,
            "regret_per_step": regret / rounds if has_oracle and rounds else None,
            "tom_steps": n_pred,
            "tom_accuracy": 100.0 * sum(predicted) / n_pred if n_pred else None,
            "tom_response": self.tom_response,
            **self._tom_regret_keys(self.tom_response, ""),
            "regrets": list(self._regrets),
            "tom_correct": list(self._correct),
        }
        for r in TOM_RESPONSES:
            out.update(self._tom_regret_keys(r, f"_{r}"))
        return out

    def _tom_regret_keys(self, response: str, suffix: str) -> dict[str, Any]:
        """ΔToM's summary keys under ``response``: total, per predicted step, per round (None: unscored)."""
        per_round = self._costs[TOM_RESPONSES.index(response)]
        scored = [x for x in per_round if x is not None]
        total = float(sum(scored)) if scored else None
        return {f"tom_regret{suffix}": total,
                f"tom_regret_per_step{suffix}": None if total is None else total / len(scored),
                f"tom_regrets{suffix}": list(per_round)}
