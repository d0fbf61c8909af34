"""Scripted focal policies: random, fixed action, any partner used as a focal agent, and the
oracle best responder (zero regret by construction)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tom_envs.errors import InvalidAction, InvalidPartner, OracleUnavailable
from tom_envs.matrix.games import GAMES, MatrixGame, get_game
from tom_envs.matrix.oracle import OracleSolution
from tom_envs.matrix.partners import Partner, get_partner
from policies.base import BasePolicy, PolicyMismatch, joint_code


def check_game(game: "MatrixGame | tuple[str, int, int]", description: Any, who: str) -> None:
    """Raise :class:`~policies.base.PolicyMismatch` if the env ``description`` describes (a
    :class:`tom_envs.description.EnvDescription`, what the runner hands ``check_env``) plays another game than
    ``game``: a :class:`MatrixGame` must be the env's (same payoffs), a ``(name, actions, partner actions)`` triple
    (learners that know only the action counts, not the payoffs) must have the env's action counts. Envs that
    play no matrix game (no ``game``/``payoffs`` among their kwargs) are left alone."""
    other = game_of(description)
    if other is None:
        return
    name, n_a, n_b = (game.name, game.n_actions, game.n_partner_actions) if isinstance(game, MatrixGame) else game
    if (n_a, n_b) == (other.n_actions, other.n_partner_actions) and (
        not isinstance(game, MatrixGame) or game.payoffs == other.payoffs
    ):
        return
    raise PolicyMismatch(
        f"{who} was built for {name} ({n_a} x {n_b} actions), but this env plays {other.name} "
        f"({other.n_actions} x {other.n_partner_actions}): build it with game={other.name!r}"
        + ("" if other.name in GAMES else " (the env's MatrixGame)")
    )


def game_of(description: Any) -> MatrixGame | None:
    """The matrix game an env description's kwargs name (its ``game``, or a custom game's ``payoffs`` and labels),
    None when they name none or do not build one.

    Raises:
        PolicyMismatch: ``description`` is not an :class:`~tom_envs.description.EnvDescription` (a policy is
            checked against the description the runner hands over, never against an env object).
    """
    from tom_envs.description import EnvDescription
    from tom_envs.errors import InvalidGame
    from tom_envs.matrix.config import CustomGame, build_game

    if not isinstance(description, EnvDescription):
        raise PolicyMismatch(
            f"check_env takes the env's description (tom_envs.description.describe(env)), got "
            f"{type(description).__name__}"
        )
    kwargs = description.kwargs
    custom = {k: kwargs[k] for k in ("payoffs", "action_labels", "partner_action_labels", "name") if k in kwargs}
    if kwargs.get("game") is None and not custom:
        return None
    try:
        return build_game(kwargs.get("game"), CustomGame.from_kwargs("check_env", custom))
    except (InvalidGame, TypeError, ValueError, KeyError):
        return None


class RandomPolicy(BasePolicy):
    """Uniformly random actions; predicts a uniformly random partner action (a chance-level
    literal-ToM baseline)."""

    makes_predictions = True

    def __init__(self, game: "str | MatrixGame") -> None:
        super().__init__()
        self.game = get_game(game)

    def check_env(self, description: Any) -> None:
        check_game(self.game, description, "the random policy")

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(self.game.n_actions))

    def predict(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(self.game.n_partner_actions))


class FixedActionPolicy(BasePolicy):
    """Always plays the same action; makes no prediction."""

    def __init__(self, action: int) -> None:
        super().__init__()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action < 0:
            raise InvalidAction(f"FixedActionPolicy needs a non-negative action index, got {action!r}")
        self.action = int(action)

    def act(self, observation: Any, info: dict) -> int:
        return self.action


class PartnerPolicy(BasePolicy):
    """Any partner (built-in, Axelrod, or your own :class:`Partner`) playing the focal seat.

    Args:
        partner: a partner name (built for the focal seat of ``game``, i.e. for the transposed
            game, so best-response partners use the focal agent's payoffs) or a Partner built for
            ``game.transposed()``.
        game: the game being played (name or :class:`MatrixGame`).

    The partner sees the environment's partner as its opponent; the last joint action is read
    from the observation, so no extra feedback call is needed.
    """

    def __init__(self, partner: "str | Partner", game: "str | MatrixGame") -> None:
        super().__init__()
        self.game = get_game(game)
        seat_game = self.game.transposed()
        self.partner = get_partner(seat_game, partner) if isinstance(partner, str) else partner
        if self.partner.game.key != seat_game.key:
            raise InvalidPartner(
                f"partner {self.partner.name!r} was built for {self.partner.game.name}'s column seat; build it for "
                "game.transposed() (or pass its name) to use it as a focal policy"
            )
        self.name = self.partner.name
        self._tracker = _RoundTracker()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.partner.reset(self.rng, None)
        self._tracker = _RoundTracker()

    def act(self, observation: Any, info: dict) -> int:
        last = self._tracker.new_round(observation, info, self.game.n_actions, self.game.n_partner_actions)
        if last is not None:
            a, b = last
            self.partner.observe(b, a)  # in the transposed game the env's partner is the row player
        return int(self.partner.next_action())


class OracleBestResponsePolicy(BasePolicy):
    """Follows the exact optimal T-step response to the partner (regret 0).

    It reads the :class:`OracleSolution` from the environment's reset ``info["oracle"]``
    (ground truth, returned only by an env made with ``expose_partner=True``: pass
    :attr:`env_kwargs` to the env; so this is a reference policy, not a learner) and tracks the partner's
    automaton state on the observed joint actions. Its prediction is the partner automaton's
    action distribution in the tracked state (exact for deterministic partners).
    """

    makes_predictions = True
    #: what the env must be made with for this policy to see the oracle (the information rule hides it otherwise)
    env_kwargs = {"expose_partner": True}

    def __init__(self) -> None:
        super().__init__()
        self._solution: OracleSolution | None = None
        self._state = 0
        self._t = 0
        self._tracker = _RoundTracker()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._solution = None
        self._tracker = _RoundTracker()

    def act(self, observation: Any, info: dict) -> int:
        sol = self._advance(observation, info)
        return sol.action(self._t, self._state)

    def predict(self, observation: Any, info: dict) -> np.ndarray:
        sol = self._advance(observation, info)
        return sol.automaton.policy[self._state].copy()

    def _advance(self, observation: Any, info: dict) -> OracleSolution:
        if "oracle" in info and info is not self._tracker.last_info:  # reset info: a new episode
            sol = info["oracle"]
            if sol is None:
                raise OracleUnavailable(
                    f"partner {info.get('partner')!r} is a black box; the oracle best responder needs an automaton partner"
                )
            self._solution, self._state, self._t = sol, sol.initial_state, 0
        if self._solution is None:
            raise OracleUnavailable(
                "OracleBestResponsePolicy needs the env's reset info (info['oracle']) on its first call; "
                "the oracle is hidden state, returned only by an env made with expose_partner=True"
            )
        sol = self._solution
        last = self._tracker.new_round(
            observation, info, sol.automaton.n_focal_actions, sol.automaton.n_partner_actions
        )
        if last is not None:
            self._state = int(sol.automaton.transition[self._state, last[0], last[1]])
            self._t += 1
        return sol


class _RoundTracker:
    """Tells whether an (observation, info) pair starts a new round, so that calling
    ``predict`` and ``act`` on the same round advances a policy's state once. Every env step
    returns a fresh ``info`` dict; the tracker keeps a reference to the last one it saw."""

    def __init__(self) -> None:
        self.last_info: dict | None = None

    def new_round(self, observation: Any, info: dict, n_a: int, n_b: int) -> tuple[int, int] | None:
        """The joint action just played, if this is a new (observation, info); else None."""
        if info is self.last_info:
            return None
        self.last_info = info
        code = joint_code(observation)
        return None if code == n_a * n_b else divmod(code, n_b)
