"""Axelrod strategies as black-box partners for the IPD (and any other 2x2 game).

The `Axelrod library <https://axelrod.readthedocs.io>`_ holds a few hundred Prisoner's Dilemma
strategies. :class:`AxelrodPartner` drives one of them through the partner runtime protocol
exactly as ``axelrod.Match`` would: the same ``reset`` / ``set_match_attributes`` / ``set_seed``
sequence before the game, one ``strategy(opponent)`` call per round, and the same history
updates after it. The focal agent is represented by a "mirror" player whose history holds the
focal agent's moves (Axelrod strategies only read ``opponent.history``, ``.cooperations`` and
``.defections``).

Action 0 of the game is Axelrod's C, action 1 its D. Strategies are black boxes (no automaton),
so environments report accumulated reward for them but no exact regret.

``axelrod`` is an optional dependency (``pip install 'tom-envs[axelrod]'``), imported only when
an Axelrod partner is built.
"""

from __future__ import annotations

import difflib
import inspect
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from tom_envs.errors import InvalidPartner, UnknownPartner, import_optional
from tom_envs.matrix.games import IPD, MatrixGame, get_game
from tom_envs.matrix.partner_base import Partner, classifier_matches

if TYPE_CHECKING:  # pragma: no cover - typing only
    import axelrod

__all__ = ["EXCLUDED_FLAGS", "AxelrodPartner", "axelrod_game", "axelrod_partners"]

#: Classifier flags of strategies that break Axelrod's tournament rules (they read or rewrite source
#: code or other players' state); such strategies are never partners.
EXCLUDED_FLAGS: tuple[str, ...] = ("inspects_source", "manipulates_source", "manipulates_state")

_SEED_BOUND = 2**31 - 1  # seeds for stochastic strategies are drawn from [0, 2**31 - 1)


def _axelrod():
    return import_optional("axelrod", "axelrod", "Using Axelrod strategies as partners")


def axelrod_game(game: "str | MatrixGame" = IPD) -> "axelrod.Game":
    """The ``axelrod.Game`` seen by a partner (the column player) of a 2x2 ``game``.

    R, S, T and P are the partner's own payoffs: (C, C), (C against a focal D), (D against a
    focal C) and (D, D). For a symmetric game such as the IPD this is the usual game
    (IPD: ``Game(r=8, s=0, t=10, p=5)``); for an asymmetric one, strategies that compute the
    opponent's score see the symmetric counterpart of the partner's payoffs.

    Raises:
        InvalidPartner: the game is not 2x2.
    """
    game = get_game(game)
    _check_game(game)
    axl = _axelrod()
    Rp = game.partner_payoffs
    r, s, t, p = (_number(Rp[a, b]) for a, b in ((0, 0), (1, 0), (0, 1), (1, 1)))
    return axl.Game(r=r, s=s, t=t, p=p)


def _number(x: float) -> int | float:
    x = float(x)
    return int(x) if x.is_integer() else x  # ints, like axelrod's own games


def _check_game(game: MatrixGame) -> None:
    if game.n_actions != 2 or game.n_partner_actions != 2:
        raise InvalidPartner(
            f"Axelrod strategies play 2x2 games (action 0 = C, action 1 = D), but {game.name} is "
            f"{game.n_actions}x{game.n_partner_actions}; use them with IPD (or another 2x2 game)."
        )


def _strategy_classes(axl: Any) -> dict[str, type]:
    """Every Axelrod strategy class by its ``name`` (cheaters included, so they can be refused)."""
    return {cls.name: cls for cls in axl.all_strategies}


def _lookup(axl: Any, name: str) -> type:
    classes = _strategy_classes(axl)
    if name in classes:
        return classes[name]
    by_lower = [cls for n, cls in classes.items() if n.lower() == name.lower()]
    by_lower += [cls for cls in classes.values() if cls.__name__ == name and cls not in by_lower]
    if len(by_lower) == 1:
        return by_lower[0]
    close = difflib.get_close_matches(name, list(classes), n=5, cutoff=0.5)
    hint = f" Close matches: {', '.join(repr(c) for c in close)}." if close else ""
    raise UnknownPartner(
        f"no Axelrod strategy named {name!r}.{hint} Names are the strategies' .name, e.g. 'Tit For Tat'; "
        "see axelrod.all_strategies or tom_envs.matrix.axelrod_partner.axelrod_partners()."
    )


def _make_player(axl: Any, strategy: Any) -> Any:
    """A fresh player, never shared with the caller."""
    if isinstance(strategy, str):
        return _lookup(axl, strategy.strip())()
    if isinstance(strategy, type) and issubclass(strategy, axl.Player):
        return strategy()
    if isinstance(strategy, axl.Player):
        return strategy.clone()
    raise InvalidPartner(
        f"cannot make an Axelrod partner from {strategy!r}; give a strategy name (e.g. 'Tit For Tat'), "
        "an axelrod.Player subclass or an axelrod.Player instance"
    )


def _excluded_reason(axl: Any, player: Any) -> str | None:
    flags = [flag for flag in EXCLUDED_FLAGS if axl.Classifiers[flag](player)]
    return f"its classifier sets {', '.join(flags)}" if flags else None


def _makes_use_of(axl: Any, player: Any) -> frozenset[str]:
    try:
        return frozenset(axl.Classifiers["makes_use_of"](player) or ())
    except (OSError, TypeError):  # dynamically created (transformed) classes have no source
        return frozenset()


def _display_name(player: Any) -> str:
    """``player.name``, or its repr (name plus parameters) when built with non-default parameters."""
    try:
        default = bool(player.init_kwargs == type(player).init_params())
    except Exception:  # e.g. numpy arrays among the parameters
        default = False
    return player.name if default else repr(player)


def _importable(cls: type) -> bool:
    obj: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is cls


class AxelrodPartner(Partner):
    """An Axelrod strategy playing the partner's (column) seat of a 2x2 game.

    Args:
        strategy: an Axelrod strategy name (its ``.name``, e.g. ``"Tit For Tat"``), an
            ``axelrod.Player`` subclass, or an ``axelrod.Player`` instance (cloned: the partner
            never shares a player with the caller).
        game: the game (default IPD). Action 0 is C, action 1 is D.

    Raises:
        UnknownPartner: no strategy has that name (the message lists close matches).
        InvalidPartner: the game is not 2x2, the strategy cheats (its classifier sets
            ``inspects_source``, ``manipulates_source`` or ``manipulates_state``), it is not
            defined for the game's payoffs (axelrod raises while reading them, as some
            zero-determinant strategies do for the IPD), or ``strategy`` is not a name, Player
            class or Player.

    Example::

        partner = AxelrodPartner("Tit For Tat")
        env = gymnasium.make("tom/IPD-v0", partners=[partner])   # or partners="axelrod:Tit For Tat"

    The name is ``"axelrod:<strategy name>"`` (with the parameters appended, as in Axelrod's
    repr, for a player built with non-default parameters). The classifier holds Axelrod's
    ``memory_depth``, ``stochastic``, ``makes_use_of`` and ``long_run_time`` plus tom-envs' keys.
    """

    def __init__(self, strategy: Any, game: "str | MatrixGame" = IPD) -> None:
        game = get_game(game)
        _check_game(game)
        super().__init__(game)
        axl = _axelrod()
        player = _make_player(axl, strategy)
        reason = _excluded_reason(axl, player)
        if reason:
            raise InvalidPartner(
                f"Axelrod strategy {player.name!r} cannot be a partner: {reason}, so it breaks Axelrod's "
                "tournament rules (reading or rewriting source code or state). Pick a strategy that obeys them."
            )
        self._axl_game = axelrod_game(game)
        try:  # strategies derive parameters from the payoffs here (ZD strategies may fail)
            player.set_match_attributes(length=-1, game=self._axl_game, noise=0)
        except (ValueError, ArithmeticError) as exc:
            raise InvalidPartner(
                f"Axelrod strategy {player.name!r} is not defined for the payoffs of {game.name} "
                f"(axelrod: {exc!r}); axelrod.Match fails the same way. Pick another strategy."
            ) from exc
        Cl = axl.Classifiers
        self.name = f"axelrod:{_display_name(player)}"
        self.classifier = {
            "memory_depth": Cl["memory_depth"](player),
            "stochastic": bool(Cl["stochastic"](player)),
            "makes_use_of": _makes_use_of(axl, player),
            "long_run_time": bool(Cl["long_run_time"](player)),
            "populations": frozenset({"axelrod", "all"}),
            "source": "axelrod",
            "game": game.name,
            "automaton": False,
        }
        self.__doc__ = inspect.cleandoc(type(player).__doc__ or "") or type(self).__doc__
        self._cls = type(player)
        self._init_kwargs = dict(player.init_kwargs)
        self._player = player
        self._mirror: Any = None  # the focal agent as Axelrod sees it; None before reset
        self._horizon: int | None = None
        self._seed: int | None = None
        self._pending: Any = None  # this round's axelrod Action, once strategy() has run
        self._actions: tuple[Any, ...] = ()  # axelrod's (C, D), set at reset
        self._rounds: list[tuple[int, int]] = []  # (focal, partner) actions of the episode

    # ------------------------------------------------------------------ ground truth
    def automaton(self) -> None:
        """None: an Axelrod strategy is a black box (no exact regret)."""
        return None

    @property
    def player(self) -> "axelrod.Player":
        """The underlying Axelrod player (read it, don't drive it)."""
        return self._player

    # ------------------------------------------------------------------ runtime protocol
    def reset(self, rng: np.random.Generator, horizon: int | None = None) -> None:
        """Start a game of ``horizon`` rounds, as ``axelrod.Match.play`` starts one.

        The player is reset and given the match attributes (length, game, noise 0), then seeded
        from ``rng`` (one draw, whether or not Axelrod classifies the strategy as stochastic:
        a deterministic strategy ignores its seed). ``horizon=None`` means an unknown length.
        """
        self._horizon = None if horizon is None else int(horizon)
        self._seed = int(rng.integers(_SEED_BOUND))
        self._start()

    def _start(self) -> None:
        axl = _axelrod()
        length = -1 if self._horizon is None else self._horizon  # -1: axelrod's "unknown length"
        self._mirror = axl.Cooperator()
        for p in (self._player, self._mirror):
            p.reset()
            p.set_match_attributes(length=length, game=self._axl_game, noise=0)
        self._player.set_seed(self._seed)
        self._actions = (axl.Action.C, axl.Action.D)
        self._pending = None
        self._rounds = []

    def next_action(self) -> int:
        """This round's action (``strategy()`` runs once per round; repeated calls agree)."""
        if self._pending is None:
            if self._mirror is None:
                raise RuntimeError(f"partner {self.name!r} was used before reset(rng, horizon)")
            self._pending = self._player.strategy(self._mirror)
        return int(self._pending.value)

    def observe(self, focal_action: int, partner_action: int) -> None:
        """Record the round's joint action in both histories, as ``Match.simultaneous_play`` does."""
        self.next_action()  # strategy() must run every round, even if nobody asked for the action
        if focal_action not in (0, 1) or partner_action not in (0, 1):
            raise ValueError(
                f"an Axelrod partner plays 2x2 games: actions are 0 (C) and 1 (D), got "
                f"focal_action={focal_action!r}, partner_action={partner_action!r}"
            )
        own, opp = self._actions[partner_action], self._actions[focal_action]
        self._player.update_history(own, opp)
        self._mirror.update_history(opp, own)
        self._rounds.append((int(focal_action), int(partner_action)))
        self._pending = None

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        """Picklable state: how to rebuild the player, plus the episode so far (replayed on load).

        Axelrod players are not pickled themselves (some hold ``itertools`` iterators, whose
        pickling is deprecated); the player is rebuilt from its class and parameters, reset and
        seeded again, and the recorded rounds are replayed through ``strategy()``, which restores
        its internal state and random stream exactly.
        """
        state = self.__dict__.copy()
        for key in ("_player", "_mirror", "_pending", "_axl_game", "_cls", "_actions"):
            state.pop(key, None)
        # a transformed strategy's class cannot be pickled by reference; axelrod pickles its players
        state["_cls_ref"] = self._cls if _importable(self._cls) else self._cls(**self._init_kwargs)
        state["_started"] = self._mirror is not None
        state["_pending_drawn"] = self._pending is not None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        cls_ref = state.pop("_cls_ref")
        started = state.pop("_started")
        pending_drawn = state.pop("_pending_drawn")
        self.__dict__.update(state)
        self._cls = cls_ref if isinstance(cls_ref, type) else type(cls_ref)
        self._player = self._cls(**self._init_kwargs)
        self._axl_game = axelrod_game(self.game)
        self._player.set_match_attributes(length=-1, game=self._axl_game, noise=0)
        self._mirror = None
        self._pending = None
        if not started:
            return
        rounds = self._rounds
        self._start()
        for a, b in rounds:
            self.observe(a, b)  # runs strategy() for the round, then updates both histories
        if pending_drawn:
            self.next_action()


# ---------------------------------------------------------------------- collections


def axelrod_partners(
    game: "str | MatrixGame" = IPD, *, include_long_run_time: bool = False, **classifier_query: Any
) -> list[AxelrodPartner]:
    """Every eligible Axelrod strategy whose classifier matches the query, as partners.

    Cheating strategies (``inspects_source``, ``manipulates_source``, ``manipulates_state``)
    and strategies not defined for the game's payoffs (e.g. most zero-determinant strategies
    for the IPD's 8/0/10/5) are never included; strategies with ``long_run_time`` only with
    ``include_long_run_time=True``.

    Args:
        game: a 2x2 game (default IPD).
        include_long_run_time: also include slow strategies (meta strategies, DBS, ...).
        **classifier_query: ``key=value`` pairs matched against each partner's classifier, as
            in :func:`tom_envs.matrix.partners.select_partners`: a set-valued entry matches when
            it contains the value, a callable value is a predicate. Keys are the partner's
            classifier keys or any Axelrod classifier name.

    Example::

        axelrod_partners(stochastic=False, memory_depth=1)
        axelrod_partners(makes_use_of="length")

    Raises:
        UnknownPartner: a query key is not a known classifier.
        InvalidPartner: the game is not 2x2.
    """
    game = get_game(game)
    _check_game(game)
    axl = _axelrod()
    known = {c.name for c in axl.classifier.all_classifiers} | {
        "memory_depth",
        "stochastic",
        "makes_use_of",
        "long_run_time",
        "populations",
        "source",
        "game",
        "automaton",
    }
    unknown = set(classifier_query) - known
    if unknown:
        raise UnknownPartner(f"unknown classifier key(s) {sorted(unknown)}; known keys: {sorted(known)}")
    found = []
    for cls in axl.all_strategies:
        player = cls()
        if _excluded_reason(axl, player):
            continue
        if not include_long_run_time and axl.Classifiers["long_run_time"](player):
            continue
        try:
            partner = AxelrodPartner(player, game=game)
        except InvalidPartner:  # not defined for this game's payoffs
            continue
        values = {
            k: partner.classifier[k] if k in partner.classifier else axl.Classifiers[k](player)
            for k in classifier_query
        }
        if all(classifier_matches(values[k], v) for k, v in classifier_query.items()):
            found.append(partner)
    return found
