"""Exact references of live persuasion v3 (:mod:`tom_envs.persuasion.mind_v3`), every one of them exact.

All values are success probabilities of a family's episode at turn budget ``T`` (the persuader acts at
turns ``0..T-1`` and has heard the opening reply and one reply per listening turn before each act):

* **oracle**: knows the persuadee's type and pitches its own pitch at once.
* **Bayes-optimal fair persuader** (:func:`bayes_table`): persona, source and stake unknown, every reply
  remembered. The replies' counts are a sufficient statistic (the replies are exchangeable given the type),
  so an expectimax over ``(turn, counts)`` is exact: at most ``C(T + 4, 4)`` states (495 at T = 8).
* **best memory-less persuader** (:func:`memoryless_table`): the best policy whose act depends only on what
  the env returns this turn -- the reply, the turn and the family -- and on nothing remembered. Such a policy
  is a table: per turn, the set ``L`` of replies it listens on, and a pitch for every other reply. The best
  table is deterministic (success is multilinear in the table's probabilities, so a vertex is optimal), and
  what a table did before turn ``t`` reaches turn ``t`` only through who is still talking: the survival
  vector ``S_t(row) = prior(row) * prod_u P(listen at u | row)``, which depends only on the *multiset* of
  the listen sets chosen so far. A dynamic programme over those multisets (``C(t + 15, 15)`` of them at turn
  ``t``: 170,544 at t = 7) with the best pitch per reply given ``S_t`` is therefore exact, with no bound
  and no sampling; :func:`memoryless_brute_force` checks it against every table at small ``T``.
* **best open-loop plan** (:func:`open_loop_table`): every plan of ``5**T`` acts, enumerated (390,625 at T = 8).
* **echo** (:func:`echo_value`): a memory-less rule -- listen to the last turn, then pitch the last reply's
  value for the trait it spoke of and the prior's likelier value for the other.
* **random**: uniform over the five acts every turn, exact.

The **value of memory** is Bayes minus the best memory-less persuader: what tracking the mind across
replies is worth over reacting to the last one.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from tom_envs.persuasion.mind_v3 import LISTEN, N_ACTIONS_V3, N_CUES, ModelV3, model_v3_for, pitch_action
from tom_envs.persuasion.principles import InvalidPersona

#: The turn budgets v3 plans for (its memory-less reference is exact up to here in about a minute).
MAX_HORIZON_V3 = 8
N_SETS = 2**N_CUES  # listen sets of a memory-less table
_CACHE: dict[tuple[str, int, int], Any] = {}


def _per_model(fn):
    """Cache ``fn(model, horizon)`` per compiled model (models are cached per family) and horizon."""

    def cached(model: ModelV3, horizon: int):
        key = (fn.__name__, id(model), horizon)
        if key not in _CACHE:
            _CACHE[key] = (model, fn(model, horizon))  # the model kept alive, so its id is not reused
        return _CACHE[key][1]

    cached.__name__, cached.__doc__, cached.__wrapped__ = fn.__name__, fn.__doc__, fn
    return cached


def check_horizon_v3(horizon: Any) -> int:
    """``horizon`` as an int in 1..:data:`MAX_HORIZON_V3`.

    Raises:
        InvalidPersona: anything else, saying the range.
    """
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or not 1 <= horizon <= MAX_HORIZON_V3:
        raise InvalidPersona(
            f"live persuasion v3's turn budget is an integer in 1..{MAX_HORIZON_V3} (its exact "
            f"references stop there), got {horizon!r}"
        )
    return int(horizon)


@dataclass(frozen=True)
class ReferencesV3:
    """Exact success probabilities of one family at one turn budget."""

    oracle: float
    bayes: float
    memoryless: float
    open_loop: float
    echo: float
    random: float

    @property
    def value_of_memory(self) -> float:
        return self.bayes - self.memoryless

    def as_dict(self) -> dict[str, float]:
        """The fields, in order, and the value of memory."""
        return {**asdict(self), "value_of_memory": self.value_of_memory}


# ---------------------------------------------------------------------- Bayes-optimal (expectimax over counts)
@dataclass(frozen=True)
class BayesTable:
    """``q[(turn, counts)]``: the unnormalised value of each act after the replies ``counts`` (a tuple of
    :data:`N_CUES` counts summing to ``turn + 1``); divide by :meth:`weight` for the conditional value."""

    model: ModelV3
    horizon: int
    q: dict[tuple[int, tuple[int, ...]], np.ndarray]

    @property
    def value(self) -> float:
        return float(sum(self.q[(0, tuple(int(i == o) for i in range(N_CUES)))].max() for o in range(N_CUES)))

    def belief(self, turn: int, counts: tuple[int, ...]) -> np.ndarray:
        """Unnormalised joint of each type with these replies and the persuadee still talking."""
        m = self.model
        return m.prior * np.prod(m.cue ** np.asarray(counts)[None, :], axis=1) * (1.0 - m.leave) ** turn

    def weight(self, turn: int, counts: tuple[int, ...]) -> float:
        return float(self.belief(turn, counts).sum())

    def act(self, turn: int, counts: tuple[int, ...]) -> int:
        """The Bayes act (lowest index among ties within 1e-12)."""
        q = self.q[(turn, counts)]
        return int(np.flatnonzero(q >= q.max() - 1e-12)[0])

    def regret(self, turn: int, counts: tuple[int, ...], action: int) -> float:
        """Success probability lost by ``action`` here, against the Bayes act, given what was heard."""
        q = self.q[(turn, counts)]
        return float((q.max() - q[action]) / self.weight(turn, counts))


@_per_model
def bayes_table(model: ModelV3, horizon: int) -> BayesTable:
    """The exact Bayes-optimal values of every act at every reachable ``(turn, counts)``."""
    horizon = check_horizon_v3(horizon)
    q: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
    for turn in range(horizon - 1, -1, -1):
        for counts in _compositions(turn + 1, N_CUES):
            b = model.prior * np.prod(model.cue ** np.asarray(counts)[None, :], axis=1) * (1.0 - model.leave) ** turn
            values = model.pays @ b  # pitching now; listening (row 0) pays 0 now
            if turn < horizon - 1:
                values[LISTEN] = sum(q[(turn + 1, _plus(counts, o))].max() for o in range(N_CUES))
            q[(turn, counts)] = values
    return BayesTable(model, horizon, q)


# ---------------------------------------------------------------------- best memory-less (exact DP over multisets)
@dataclass(frozen=True)
class MemorylessTable:
    """The best memory-less persuader: per turn, ``acts[turn][reply]`` (listen or a pitch), and its value."""

    value: float
    acts: tuple[tuple[int, ...], ...]

    def act(self, turn: int, reply: int) -> int:
        return self.acts[turn][reply]


def _listen_masks() -> np.ndarray:
    return np.array([[(s >> o) & 1 for o in range(N_CUES)] for s in range(N_SETS)], dtype=float)


def _pitch_gains(model: ModelV3, survival: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For survival rows ``(N, types)``: the best pitch per reply ``(N, N_CUES)`` and its value."""
    # value[n, a, o] = sum_row S[n,row] cue[row,o] pays[a,row]
    value = np.einsum("nr,ro,ar->nao", survival, model.cue, model.pays[1:])
    best = value.argmax(axis=1)
    return best + 1, value.max(axis=1)


def _states(depth: int) -> np.ndarray:
    """Every multiset of ``depth`` listen sets, as counts ``(N, N_SETS)``."""
    combos = np.array(list(itertools.combinations_with_replacement(range(N_SETS), depth)), dtype=np.int64)
    counts = np.zeros((len(combos), N_SETS), dtype=np.int64)
    if depth:
        np.add.at(counts, (np.repeat(np.arange(len(combos)), depth), combos.ravel()), 1)
    return counts


def _codes(counts: np.ndarray, base: int) -> np.ndarray:
    return counts @ (base ** np.arange(N_SETS, dtype=np.int64))


@_per_model
def memoryless_table(model: ModelV3, horizon: int) -> MemorylessTable:
    """The exact best memory-less persuader of ``model`` at ``horizon`` (see the module docstring)."""
    horizon = check_horizon_v3(horizon)
    masks = _listen_masks()
    listen = (model.cue @ masks.T) * (1.0 - model.leave)[:, None]  # (types, sets)
    log_listen = np.log(np.where(listen > 0, listen, 1.0))
    zero = listen <= 0
    base = horizon + 1
    later_value = later_codes = None
    choices: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for depth in range(horizon - 1, -1, -1):
        counts = _states(depth)
        survival = model.prior[None, :] * np.exp(counts @ log_listen.T)
        survival[(counts @ zero.T.astype(np.int64)) > 0] = 0.0
        _, gains = _pitch_gains(model, survival)
        now = gains @ (1.0 - masks.T)  # (N, sets): pitching on the replies outside the set
        if depth == horizon - 1:
            total = now[:, 0:1]  # the last turn: listening pays nothing, so pitch on every reply
            pick = np.zeros(len(counts), dtype=np.int64)
        else:
            child = _codes(counts, base)[:, None] + (base ** np.arange(N_SETS, dtype=np.int64))[None, :]
            total = now + later_value[np.searchsorted(later_codes, child)]
            pick = total.argmax(axis=1)
        order = np.argsort(_codes(counts, base))
        later_codes = _codes(counts, base)[order]
        later_value = total.max(axis=1)[order]
        choices[depth] = (later_codes, pick[order])
    acts, counts = [], np.zeros(N_SETS, dtype=np.int64)
    for depth in range(horizon):  # the optimal table, read forward
        codes, picks = choices[depth]
        chosen = int(picks[np.searchsorted(codes, _codes(counts[None, :], base))[0]])
        survival = model.prior * np.prod(np.where(counts[None, :] > 0, listen ** counts[None, :], 1.0), axis=1)
        best, _ = _pitch_gains(model, survival[None, :])
        acts.append(tuple(LISTEN if (chosen >> o) & 1 else int(best[0, o]) for o in range(N_CUES)))
        counts[chosen] += 1
    return MemorylessTable(float(later_value[0]), tuple(acts))


def memoryless_value(model: ModelV3, acts: tuple[tuple[int, ...], ...]) -> float:
    """The exact success probability of a memory-less table ``acts[turn][reply]``."""
    survival, total = model.prior.copy(), 0.0
    for row in acts:
        for o, action in enumerate(row):
            if action != LISTEN:
                total += float((survival * model.cue[:, o] * model.pays[action]).sum())
        survival = (
            survival * model.cue[:, [o for o, a in enumerate(row) if a == LISTEN]].sum(axis=1) * (1.0 - model.leave)
        )
    return total


def memoryless_brute_force(model: ModelV3, horizon: int) -> float:
    """The best memory-less value by trying every table (5 acts per reply per turn): a check for tiny ``horizon``."""
    rows = list(itertools.product(range(N_ACTIONS_V3), repeat=N_CUES))
    return max(memoryless_value(model, acts) for acts in itertools.product(rows, repeat=horizon))


# ---------------------------------------------------------------------- open loop, echo, random, oracle
@_per_model
def open_loop_table(model: ModelV3, horizon: int) -> tuple[float, tuple[int, ...]]:
    """The best open-loop plan by enumerating all ``5**horizon`` plans: (value, plan)."""
    horizon = check_horizon_v3(horizon)
    plans = np.array(list(itertools.product(range(N_ACTIONS_V3), repeat=horizon)), dtype=np.int64)
    pitched = plans != LISTEN
    first = np.where(pitched.any(axis=1), pitched.argmax(axis=1), horizon)
    alive = model.prior[None, :] * (1.0 - model.leave)[None, :] ** np.minimum(first, horizon - 1)[:, None]
    action = plans[np.arange(len(plans)), np.minimum(first, horizon - 1)]
    values = np.where(first < horizon, (alive * model.pays[action]).sum(axis=1), 0.0)
    best = int(values.argmax())
    return float(values[best]), tuple(int(a) for a in plans[best])


def echo_acts(model: ModelV3, horizon: int) -> tuple[tuple[int, ...], ...]:
    """Echo's table: listen until the last turn, then pitch what the last reply said, the prior's likelier value
    for the other trait."""
    source_prior = np.array([model.prior[[i for i, t in enumerate(model.types) if t[1] == v]].sum() for v in (0, 1)])
    stake_prior = np.array([model.prior[[i for i, t in enumerate(model.types) if t[2] == v]].sum() for v in (0, 1)])
    likely_source, likely_stake = int(source_prior.argmax()), int(stake_prior.argmax())
    last = tuple(pitch_action(o, likely_stake) if o < 2 else pitch_action(likely_source, o - 2) for o in range(N_CUES))
    return tuple([(LISTEN,) * N_CUES] * (horizon - 1) + [last])


def random_value(model: ModelV3, horizon: int) -> float:
    """Uniform over the five acts each turn: a pitch wins when it is the type's own (1 in 5)."""
    stay = (1.0 - model.leave) / N_ACTIONS_V3
    per_turn = sum(stay**t for t in range(horizon))
    return float((model.prior * model.agree * per_turn).sum() / N_ACTIONS_V3)


def oracle_value(model: ModelV3) -> float:
    return float((model.prior * model.agree).sum())


def oracle_gap(model: ModelV3, horizon: int, turn: int, row: int, action: int) -> float:
    """Success probability ``action`` loses at ``turn`` against the oracle that knows the type ``row`` (its best is
    its own pitch now, ``agree[row]``; listening is worth that pitch a turn later if the persuadee stays and a turn
    is left): the per-turn regret of a policy that sees the traits."""
    if action != LISTEN:
        value = float(model.pays[action, row])
    else:
        value = float((1.0 - model.leave[row]) * model.agree[row]) if turn + 1 < horizon else 0.0
    return float(model.agree[row]) - value


def majority_v3(model: ModelV3) -> dict[str, float]:
    """Each trait's prior mass on its likelier value: the exact accuracy of predicting that value every turn (a
    trait is fixed for the episode, so an episode's accuracy is 0 or 1): the literal-ToM floor that needs no ToM."""
    out = {}
    for k, trait in ((1, "source"), (2, "stake")):
        mass = [model.prior[[i for i, t in enumerate(model.types) if t[k] == v]].sum() for v in (0, 1)]
        out[trait] = float(max(mass))
    return out


@_per_model
def _references(model: ModelV3, horizon: int) -> ReferencesV3:
    return ReferencesV3(
        oracle_value(model),
        bayes_table(model, horizon).value,
        memoryless_table(model, horizon).value,
        open_loop_table(model, horizon)[0],
        memoryless_value(model, echo_acts(model, horizon)),
        random_value(model, horizon),
    )


def references_v3(family: Any, horizon: int) -> ReferencesV3:
    """Every exact reference of a v3 family at ``horizon`` (cached per family and horizon; the memory-less
    reference takes about 5 s at T = 8 on 2 cores, a fraction of a second at T = 4)."""
    return _references(model_v3_for(family), check_horizon_v3(horizon))


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    out = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(parts)))
    return out


def _plus(counts: tuple[int, ...], o: int) -> tuple[int, ...]:
    return tuple(c + (i == o) for i, c in enumerate(counts))


__all__ = [
    "MAX_HORIZON_V3",
    "BayesTable",
    "MemorylessTable",
    "ReferencesV3",
    "bayes_table",
    "check_horizon_v3",
    "echo_acts",
    "memoryless_brute_force",
    "memoryless_table",
    "memoryless_value",
    "majority_v3",
    "open_loop_table",
    "oracle_gap",
    "oracle_value",
    "random_value",
    "references_v3",
]
