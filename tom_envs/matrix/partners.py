"""Scripted partners for the repeated matrix games, and queries that select populations.

Partners follow Axelrod's habit: a small class with a ``name``, a ``classifier`` dict and a
tiny decision rule. Every built-in partner is also an explicit finite :class:`Automaton`, so
the oracle can compute the exact optimal response to it. Black-box partners (e.g. Axelrod
strategies, see :mod:`tom_envs.matrix.axelrod_partner`) implement the same runtime protocol
without an automaton.

Runtime protocol (what environments and policy adapters call)::

    partner.reset(rng, horizon)   # a numpy Generator derived from the env's np_random
    b = partner.next_action()     # the action it plays this round (chosen before seeing the focal's)
    partner.observe(a, b)         # the joint action of the round that just ended

Classifier keys: ``memory_depth`` (rounds of history used; ``inf`` for unbounded),
``stochastic``, ``populations`` (frozenset of population names, see :data:`POPULATIONS`),
``source`` (``"004"``, ``"classic"`` or ``"axelrod"``), ``game`` and ``automaton`` (whether an
exact automaton is available).
"""

from __future__ import annotations

import bisect
import copy
import math
import re
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from tom_envs.errors import InvalidPartner, UnknownPartner
from tom_envs.matrix.automaton import Automaton
from tom_envs.matrix.games import MatrixGame, get_game
from tom_envs.matrix.nash import most_mixed_equilibrium
from tom_envs.matrix.partner_base import Partner, classifier_matches

#: Population names and what they hold.
POPULATIONS: dict[str, str] = {
    "single_action": "always plays one fixed action (004's single-action partners), one per action",
    "tit_for_tat": "004's tit-for-tat style partner: RPS best-responds to the focal's last action, "
    "IBS copies it, IPD plays tit-for-tat",
    "reactive": "deterministic partners that react to the last round (tit-for-tat family, win-stay-lose-shift, ...)",
    "random": "memoryless stochastic partners (uniform, biased, mixed Nash)",
    "cyclic": "partners that cycle through their actions regardless of the focal agent",
    "all": "every built-in partner for the game",
}

#: The default partner distribution: 004's two populations, equally weighted.
DEFAULT_PARTNERS = ("single_action", "tit_for_tat")

BIAS = 0.75  # probability of the favoured action for the biased-random partners


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_") or "action"


class AutomatonPartner(Partner):
    """A partner defined by an explicit :class:`Automaton`.

    Stochastic choices use one uniform number per round from the generator handed over at
    ``reset`` (drawn in round order, so the stream equals the environment's up-front
    ``rng.random(T)`` and both produce the same trajectory).
    """

    def __init__(
        self,
        game: MatrixGame,
        name: str,
        automaton: Automaton,
        classifier: dict[str, Any],
        doc: str = "",
    ) -> None:
        super().__init__(game)
        if automaton.n_focal_actions != game.n_actions or automaton.n_partner_actions != game.n_partner_actions:
            raise InvalidPartner(
                f"partner {name!r} is an automaton for a {automaton.n_focal_actions}x{automaton.n_partner_actions} "
                f"game, but {game.name} is {game.n_actions}x{game.n_partner_actions}"
            )
        self.name = name
        self._automaton = automaton
        self.classifier = {
            "memory_depth": 1,
            "stochastic": not automaton.is_deterministic,
            "populations": frozenset(),
            "source": "classic",
            **classifier,
            "game": game.name,
            "automaton": True,
        }
        self.__doc__ = doc or type(self).__doc__
        self._state = automaton.initial_state
        self._rng: np.random.Generator | None = None
        self._pending: int | None = None

    def automaton(self) -> Automaton:
        return self._automaton

    @property
    def state(self) -> int:
        """Current automaton state."""
        return self._state

    def reset(self, rng: np.random.Generator, horizon: int | None = None) -> None:
        self._state = self._automaton.initial_state
        self._rng = rng
        self._pending = None

    def next_action(self) -> int:
        """This round's action (drawn once per round; repeated calls return the same action)."""
        if self._pending is None:
            s = self._state
            b = self._automaton.deterministic_actions[s]
            if b < 0:
                if self._rng is None:
                    raise RuntimeError(f"partner {self.name!r} was used before reset(rng)")
                b = self._automaton.sample(s, self._rng.random())
            self._pending = b
        return self._pending

    def action_distribution(self) -> np.ndarray:
        """Distribution of this round's action in the current state."""
        return self._automaton.policy[self._state]

    def observe(self, focal_action: int, partner_action: int) -> None:
        self._state = int(self._automaton.transition[self._state, focal_action, partner_action])
        self._pending = None


# ---------------------------------------------------------------------- catalogue

PartnerFamily = Callable[[MatrixGame], Iterator[AutomatonPartner]]
_FAMILIES: list[PartnerFamily] = []


def partner_family(fn: PartnerFamily) -> PartnerFamily:
    """Register a generator of built-in partners (it yields the members applicable to a game)."""
    _FAMILIES.append(fn)
    return fn


def _tft_population(game: MatrixGame, style: str) -> frozenset[str]:
    return frozenset({"reactive", "tit_for_tat"}) if game.tit_for_tat_style == style else frozenset({"reactive"})


@partner_family
def _single_action(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Always plays one action (004 §2.2: e.g. always Rock)."""
    n_a, n_b = game.n_actions, game.n_partner_actions
    for k, label in enumerate(game.partner_action_labels):
        yield AutomatonPartner(
            game,
            f"always_{_slug(label)}",
            Automaton.constant(n_a, np.eye(n_b)[k]),
            {"memory_depth": 0, "populations": frozenset({"single_action"}), "source": "004"},
            f"Always plays {label}.",
        )


@partner_family
def _tit_for_tat(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Copies the focal agent's last action (IPD tit-for-tat; 004's IBS partner).

    It is named ``tit_for_tat`` where copying is the game's tit-for-tat style (IPD, IBS), and
    ``copy_last`` elsewhere (RPS), because ``tit_for_tat`` also names the population of the
    game's tit-for-tat style partner, and the population wins when a name is resolved.
    """
    if not game.is_square:
        return
    n = game.n_actions
    yield AutomatonPartner(
        game,
        "tit_for_tat" if game.tit_for_tat_style == "copy" else "copy_last",
        Automaton.reactive(n, n, 0, list(range(n))),
        {
            "populations": _tft_population(game, "copy"),
            "source": "004" if game.tit_for_tat_style == "copy" else "classic",
        },
        f"Plays {game.partner_action_labels[0]} first, then whatever the focal agent played last round.",
    )
    if game.name == "IPD":
        yield AutomatonPartner(
            game,
            "suspicious_tit_for_tat",
            Automaton.reactive(n, n, 1, list(range(n))),
            {"populations": frozenset({"reactive"})},
            "Defects first, then copies the focal agent's last action.",
        )


@partner_family
def _best_response_to_last(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Plays its stage best response to the focal agent's last action (004's RPS partner)."""
    yield AutomatonPartner(
        game,
        "best_response_to_last",
        Automaton.reactive(game.n_actions, game.n_partner_actions, 0, list(game.partner_best_responses)),
        {
            "populations": _tft_population(game, "best_response"),
            "source": "004" if game.tit_for_tat_style == "best_response" else "classic",
        },
        f"Plays {game.partner_action_labels[0]} first, then the action that would have beaten (best "
        "answered) the focal agent's last action.",
    )


@partner_family
def _win_stay_lose_shift(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Win-stay, lose-shift (Pavlov): repeats its action after a good round, else moves on."""
    n_a, n_b = game.n_actions, game.n_partner_actions
    Rp = game.partner_payoffs
    aspiration = float(Rp.mean())
    policy = np.eye(n_b)  # state b = "play b next"
    transition = np.empty((n_b, n_a, n_b), dtype=np.int64)
    for a in range(n_a):
        for b in range(n_b):
            transition[:, a, b] = b if Rp[a, b] > aspiration else (b + 1) % n_b
    yield AutomatonPartner(
        game,
        "win_stay_lose_shift",
        Automaton(policy, transition, 0, tuple(f"play_{b}" for b in range(n_b))),
        {"populations": frozenset({"reactive"})},
        f"Starts with {game.partner_action_labels[0]}; keeps its action after a round that paid it more than "
        f"its average payoff ({aspiration:g}), otherwise switches to its next action.",
    )


@partner_family
def _grim_trigger(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Cooperates until the focal agent defects once, then defects for ever (IPD)."""
    if game.name != "IPD":
        return
    policy = np.eye(2)
    transition = np.ones((2, 2, 2), dtype=np.int64)
    transition[0, 0, :] = 0
    yield AutomatonPartner(
        game,
        "grim_trigger",
        Automaton(policy, transition, 0, ("cooperating", "triggered")),
        {"memory_depth": math.inf, "populations": frozenset({"reactive"})},
        "Cooperates until the focal agent defects once, then defects for the rest of the game.",
    )


@partner_family
def _cycles(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Cycles through its actions regardless of the focal agent (alternating; RPS cyclic)."""
    n_a, n_b = game.n_actions, game.n_partner_actions
    name = "alternating" if n_b == 2 else "cyclic"
    labels = game.partner_action_labels
    yield AutomatonPartner(
        game,
        name,
        Automaton.cycle(n_a, n_b, list(range(n_b))),
        {"populations": frozenset({"cyclic"})},
        "Plays " + ", ".join(labels) + ", then starts over.",
    )


@partner_family
def _random(game: MatrixGame) -> Iterator[AutomatonPartner]:
    """Memoryless random partners: uniform, biased towards one action, and mixed Nash."""
    n_a, n_b = game.n_actions, game.n_partner_actions
    pop = {"memory_depth": 0, "populations": frozenset({"random"})}
    yield AutomatonPartner(
        game,
        "uniform_random",
        Automaton.constant(n_a, np.full(n_b, 1.0 / n_b)),
        pop,
        "Draws every action uniformly at random.",
    )
    for k, label in enumerate(game.partner_action_labels):
        dist = np.full(n_b, (1.0 - BIAS) / (n_b - 1))
        dist[k] = BIAS
        yield AutomatonPartner(
            game,
            f"biased_{_slug(label)}",
            Automaton.constant(n_a, dist),
            pop,
            f"Plays {label} with probability {BIAS}, the other actions uniformly otherwise.",
        )
    _, y = most_mixed_equilibrium(game.focal_payoffs, game.partner_payoffs)
    y = np.where(y < 1e-12, 0.0, y)
    yield AutomatonPartner(
        game,
        "mixed_nash",
        Automaton.constant(n_a, y / y.sum()),
        pop,
        "Plays its strategy of the stage game's Nash equilibrium with the largest support "
        "(RPS: uniform; IBS: 7/17 Fight; IPD: always Defect).",
    )


_CATALOGUE: dict[tuple, dict[str, AutomatonPartner]] = {}


def _catalogue(game: MatrixGame) -> dict[str, AutomatonPartner]:
    key = game.key
    if key not in _CATALOGUE:
        members: dict[str, AutomatonPartner] = {}
        for family in _FAMILIES:
            for p in family(game):
                if p.name in members:
                    raise InvalidPartner(f"two built-in partners are named {p.name!r} for game {game.name}")
                p.classifier["populations"] = p.classifier["populations"] | {"all"}
                members[p.name] = p
        for name in members.keys() & POPULATIONS.keys():  # a name must mean the same either way
            if [m for m, p in members.items() if name in p.classifier["populations"]] != [name]:
                raise InvalidPartner(f"partner name {name!r} clashes with the population of that name in {game.name}")
        _CATALOGUE[key] = members
    return _CATALOGUE[key]


def partner_names(game: "str | MatrixGame") -> list[str]:
    """Names of every built-in partner for ``game``."""
    return list(_catalogue(get_game(game)))


def get_partner(game: "str | MatrixGame", name: str) -> Partner:
    """A fresh built-in partner by name (``"axelrod:<Strategy Name>"`` wraps an Axelrod strategy)."""
    game = get_game(game)
    if name.startswith("axelrod:"):
        from tom_envs.matrix.axelrod_partner import AxelrodPartner

        return AxelrodPartner(name.split(":", 1)[1], game=game)
    cat = _catalogue(game)
    if name not in cat:
        raise UnknownPartner(
            f"no partner named {name!r} for game {game.name}. Valid names: {', '.join(cat)}; "
            f"populations: {', '.join(POPULATIONS)}; or 'axelrod:<strategy name>' for IPD."
        )
    return copy.deepcopy(cat[name])


def select_partners(game: "str | MatrixGame", **query: Any) -> list[Partner]:
    """Built-in partners whose classifier matches every ``key=value`` of the query.

    A classifier entry that is a set matches when it contains the value; a callable value is
    used as a predicate. Example: ``select_partners("IPD", stochastic=False, memory_depth=1)``,
    ``select_partners("RPS", populations="single_action")``.
    """
    game = get_game(game)
    cat = _catalogue(game)
    known = set().union(*(p.classifier for p in cat.values()))
    unknown = set(query) - known
    if unknown:
        raise UnknownPartner(f"unknown classifier key(s) {sorted(unknown)}; known keys: {sorted(known)}")
    return [
        copy.deepcopy(p)
        for p in cat.values()
        if all(classifier_matches(p.classifier.get(k), v) for k, v in query.items())
    ]


# ---------------------------------------------------------------------- distributions


class PartnerDistribution:
    """A finite distribution over partners, sampled at every ``reset``.

    Args:
        partners: the members.
        weights: their probabilities (normalised); uniform when omitted.
    """

    def __init__(self, partners: Sequence[Partner], weights: Sequence[float] | None = None) -> None:
        if not partners:
            raise InvalidPartner("a partner distribution needs at least one partner")
        names = [p.name for p in partners]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise InvalidPartner(f"partner names must be unique within a distribution; repeated: {dupes}")
        w = np.ones(len(partners)) if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (len(partners),) or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise InvalidPartner(
                f"weights must be {len(partners)} non-negative numbers with a positive sum, got {weights!r}"
            )
        self.partners: tuple[Partner, ...] = tuple(partners)
        self.weights: np.ndarray = w / w.sum()
        cdf = np.cumsum(self.weights)
        cdf[-1] = 1.0
        self._cdf: list[float] = cdf.tolist()

    def sample_index(self, rng: np.random.Generator) -> int:
        """Index of a partner drawn with ``rng`` (one uniform draw, inverse CDF)."""
        return self.index_for(rng.random())

    def index_for(self, u: float) -> int:
        """Index of the partner that the uniform number ``u`` in [0, 1) selects (inverse CDF)."""
        return bisect.bisect_right(self._cdf, u)

    @property
    def cdf(self) -> np.ndarray:
        """Cumulative weights (last entry exactly 1.0)."""
        return np.array(self._cdf)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.partners]

    def __len__(self) -> int:
        return len(self.partners)

    def __repr__(self) -> str:
        body = ", ".join(f"{p.name}: {w:.3g}" for p, w in zip(self.partners, self.weights))
        return f"PartnerDistribution({body})"


def _group(game: MatrixGame, item: Any) -> list[Partner]:
    if isinstance(item, Partner):
        if item.game.key != game.key:
            raise InvalidPartner(f"partner {item.name!r} was built for game {item.game.name}, not {game.name}")
        return [copy.deepcopy(item)]
    if isinstance(item, dict):
        found = select_partners(game, **item)
        if not found:
            raise UnknownPartner(f"no partner of {game.name} matches the query {item!r}")
        return found
    if isinstance(item, str):
        item = item.strip()
        if item in POPULATIONS:
            found = select_partners(game, populations=item)
            if not found:
                raise UnknownPartner(f"population {item!r} is empty for game {game.name}")
            return found
        return [get_partner(game, item)]
    raise InvalidPartner(
        f"cannot use {item!r} as a partner; give a name, a population, a classifier query (dict), "
        "a Partner object, or a list of those"
    )


def resolve_partners(game: "str | MatrixGame", partners: Any = None) -> PartnerDistribution:
    """Turn the ``partners=`` argument of an environment into a :class:`PartnerDistribution`.

    Accepted forms: ``None`` (004's populations ``single_action`` and ``tit_for_tat``); a
    :class:`PartnerDistribution`; a string of comma-separated items; or a list of items, where
    an item is a partner name, a population name (:data:`POPULATIONS`), a classifier query
    (dict, see :func:`select_partners`) or a :class:`Partner`. Every item gets the same weight,
    split evenly among the partners it stands for -- so ``["single_action", "tit_for_tat"]``
    meets a tit-for-tat partner half of the time.
    """
    game = get_game(game)
    if isinstance(partners, PartnerDistribution):
        for p in partners.partners:
            if p.game.key != game.key:
                raise InvalidPartner(f"partner {p.name!r} was built for game {p.game.name}, not {game.name}")
        return PartnerDistribution([copy.deepcopy(p) for p in partners.partners], partners.weights)
    if partners is None:
        partners = list(DEFAULT_PARTNERS)
    if isinstance(partners, str):
        partners = [x for x in partners.split(",") if x.strip()]
    elif isinstance(partners, (Partner, dict)):
        partners = [partners]
    if not isinstance(partners, Iterable) or not partners:
        raise InvalidPartner(f"partners must be a non-empty name, list, query or distribution, got {partners!r}")
    members: list[Partner] = []
    weights: list[float] = []
    groups = [_group(game, item) for item in partners]
    for group in groups:
        for p in group:
            if p.name in [m.name for m in members]:
                weights[[m.name for m in members].index(p.name)] += 1.0 / len(group)
                continue
            members.append(p)
            weights.append(1.0 / len(group))
    return PartnerDistribution(members, weights)
