"""Seed 004's literal- and functional-ToM metrics for the matrix games: ToM %, ΔToM under each
response, and ΔFunctional (regret against the exact optimal response); the matrix envs name
:class:`MatrixToMScorer` in their ``ToMSpec.scorer``."""

from __future__ import annotations

from typing import Any, Mapping

from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES, check_tom_response
from tom_envs.matrix.oracle import action_value_costs
from wrappers.tom_scorer import ToMScorer


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
        return {
            "partner": self._partner_name,
            "optimal_return": None if self._oracle is None else self._oracle.optimal_return,
        }

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
            step = (
                self._stage[b_hat][b],
                self._reciprocal[b_hat][b],
                None if self._av is None or s is None else self._av[t][s][b_hat][b],
            )
        stage, reciprocal, action_value = self._costs
        stage.append(step[0])
        reciprocal.append(step[1])
        action_value.append(step[2])
        record.update(
            reward=reward,
            optimal_reward=optimal,
            regret=regret,
            tom_regret=step[self._default],
            tom_regret_stage=step[0],
            tom_regret_reciprocal=step[1],
            tom_regret_action_value=step[2],
        )
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
        return {
            f"tom_regret{suffix}": total,
            f"tom_regret_per_step{suffix}": None if total is None else total / len(scored),
            f"tom_regrets{suffix}": list(per_round),
        }
