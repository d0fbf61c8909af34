"""The mediator RL task's moves (:mod:`benchmarks.negotiation.rl`): five of 002's strategies, each aimed
by a public rule, and the public features that say when each one fits.

:class:`Moves` reads only the mediator's own observations (the stated stances, each party's silence,
the turn, the last line's speaker and topic) as they come, one per turn, and its own interventions; from
them it aims each move:

* ``invite`` (facilitative, addressed to no one): the topic with the most parties who have stated
  nothing on it -- every one of them is invited to speak.
* ``draw_out`` (facilitative, addressed to the quietest party): the first topic it has not spoken on,
  else the least agreed topic.
* ``reality_test`` (evaluative, addressed to a holdout): the party whose stated option differs from
  the plurality of the others' on the least agreed such topic (the last speaker first), pointed at
  that plurality.
* ``problem_solve`` (problem-solving, addressed to no one): the least agreed topic on which at least
  two parties have spoken, around the plurality of the stated options.
* ``transform`` (transformative, addressed to no one): the topic whose public agreement fell most over
  the last :data:`DROP_WINDOW` turns, else the last line's topic.

A move with nothing to aim at (no unheard party, no holdout, no topic spoken on twice) is a pass.
The "agreement" here is the public proxy: per topic, the share of pairs of *stated* stances that
coincide (:func:`proxy`), never the env's consensus (which starts from the parties' hidden first
choices).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

#: the move names in action order (action 0 passes, action ``1 + i`` is ``MOVES[i]``)
MOVES = ("invite", "draw_out", "reality_test", "problem_solve", "transform")
#: turns over which ``transform`` looks for a fall in public agreement
DROP_WINDOW = 6
#: a move fewer than this many turns after the mediator's previous one is a pass (one every 4 turns at
#: most, as 002's parties' patience asks; ``SocialMediator`` waits 5)
MIN_GAP = 4
#: :meth:`Moves.features`' length
N_MOVE_FEATURES = 2 * len(MOVES) + 4


def proxy(stated: np.ndarray) -> np.ndarray:
    """Per topic, the share of pairs of stated stances (-1: none) that coincide; 0.5 with fewer than two."""
    out = np.full(stated.shape[1], 0.5)
    for k in range(stated.shape[1]):
        col = stated[:, k][stated[:, k] >= 0]
        if col.size >= 2:
            counts = np.bincount(col)
            out[k] = float((counts * (counts - 1)).sum()) / (col.size * (col.size - 1))
    return out


def plurality(col: np.ndarray, exclude: int | None = None) -> int | None:
    """The most stated option of a topic's column (ties: the lowest), leaving ``exclude`` out; None if none."""
    vals = [int(s) for i, s in enumerate(col) if s >= 0 and i != exclude]
    if not vals:
        return None
    c = Counter(vals)
    return min(c, key=lambda o: (-c[o], o))


class Moves:
    """The aimed moves of one episode, from the mediator's observations (module docstring).

    Args:
        n, m, s_max: the case's parties, topics and most options of a topic.
    """

    def __init__(self, n: int, m: int, s_max: int) -> None:
        self.n, self.m, self.s_max = n, m, s_max
        self.history: list[np.ndarray] = []
        self.turn, self.budget = 0, 1
        self.silence = np.zeros(n, dtype=np.int64)
        self.last_speaker: int | None = None
        self.last_topic: int | None = None
        self.own: list[int] = []  # turns of the mediator's own interventions

    def see(self, obs: np.ndarray) -> None:
        """Take the mediator's observation of this turn (the env's int vector)."""
        obs = np.asarray(obs, dtype=np.int64)
        n, m, s = self.n, self.m, self.s_max
        self.turn, self.budget = int(obs[1]), max(int(obs[1]) + int(obs[2]), 1)
        speaker, topic = int(obs[3]), int(obs[4])
        self.last_speaker = speaker if speaker < n else None
        self.last_topic = topic if topic < m else None
        stated = obs[6 : 6 + n * m].reshape(n, m)
        self.history.append(np.where(stated < s, stated, -1))
        self.silence = obs[6 + n * m + m * s : 6 + n * m + m * s + n]

    def intervened(self) -> None:
        """The mediator intervenes at the current turn."""
        self.own.append(self.turn)

    @property
    def stated(self) -> np.ndarray:
        return self.history[-1]

    # ------------------------------------------------------------------ aiming
    def move(self, name: str) -> dict[str, Any] | None:
        """The env's dict action of move ``name`` now, or None when it has nothing to aim at or comes fewer than
        :data:`MIN_GAP` turns after the mediator's previous move."""
        if self.own and self.turn - self.own[-1] < MIN_GAP:
            return None
        return getattr(self, "_" + name)()

    def _invite(self) -> dict[str, Any] | None:
        unheard = (self.stated < 0).sum(axis=0)
        if unheard.max() == 0:
            return None
        return {"strategy": "facilitative", "topic": int(np.argmax(unheard))}

    def _draw_out(self) -> dict[str, Any] | None:
        if self.turn < self.n:
            return None
        i = int(np.argmax(self.silence))
        unknown = np.flatnonzero(self.stated[i] < 0)
        k = int(unknown[0]) if unknown.size else int(np.argmin(proxy(self.stated)))
        return {"strategy": "facilitative", "topic": k, "target": i}

    def _holdouts(self) -> list[tuple[int, int, int]]:
        """(party, topic, others' plurality) where the party's stated option differs from the others' plurality."""
        out = []
        for k in range(self.m):
            for i in range(self.n):
                if self.stated[i, k] < 0:
                    continue
                others = plurality(self.stated[:, k], exclude=i)
                if others is not None and others != self.stated[i, k]:
                    out.append((i, k, others))
        return out

    def _reality_test(self) -> dict[str, Any] | None:
        holdouts = self._holdouts()
        if not holdouts:
            return None
        agree = proxy(self.stated)
        i, k, o = min(holdouts, key=lambda h: (h[0] != self.last_speaker, agree[h[1]], h[1], h[0]))
        return {"strategy": "evaluative", "topic": k, "target": i, "option": o}

    def _problem_solve(self) -> dict[str, Any] | None:
        spoken = (self.stated >= 0).sum(axis=0)
        agree = proxy(self.stated)
        open_ = [k for k in range(self.m) if spoken[k] >= 2 and agree[k] < 1.0]
        if not open_:
            return None
        k = min(open_, key=lambda j: (agree[j], j))
        return {"strategy": "problem_solving", "topic": k, "option": plurality(self.stated[:, k])}

    def _transform(self) -> dict[str, Any] | None:
        k = self._dropped()
        if k is None:
            k = self.last_topic
        return None if k is None else {"strategy": "transformative", "topic": int(k)}

    def _dropped(self) -> int | None:
        """The topic whose public agreement fell most over the last :data:`DROP_WINDOW` turns (None: none fell)."""
        window = self.history[-DROP_WINDOW - 1 :]
        if len(window) < 2:
            return None
        now = proxy(window[-1])
        best = np.max([proxy(h) for h in window], axis=0)
        fall = best - now
        k = int(np.argmax(fall))
        return k if fall[k] > 0 else None

    # ------------------------------------------------------------------ features
    def features(self) -> np.ndarray:
        """What says when each move fits, in [0, 1] (:data:`N_MOVE_FEATURES` values): per move whether it
        has something to aim at and how much (invite: share of unheard cells; draw_out: the quietest party's
        silence; reality_test: share of holdout cells; problem_solve: 1 - the aimed topic's agreement;
        transform: the fall in agreement), then turns since the mediator's last move / 10 and its moves in the
        last 10 turns / 3 (both at most 1), whether the last line was the mediator's and the public
        agreement's change over the last turn (shifted to [0, 1])."""
        out = np.zeros(N_MOVE_FEATURES, dtype=np.float32)
        stated = self.stated
        cells = self.n * self.m
        unheard = float((stated < 0).sum()) / cells
        quiet = float(self.silence.max()) / self.budget if self.turn >= self.n else 0.0
        holdouts = len(self._holdouts()) / cells
        agree = proxy(stated)
        ps = self._problem_solve()
        solve = 1.0 - float(agree[ps["topic"]]) if ps else 0.0
        k = self._dropped()
        fall = 0.0
        if k is not None:
            fall = float(np.max([proxy(h)[k] for h in self.history[-DROP_WINDOW - 1 :]]) - agree[k])
        values = (unheard, quiet, holdouts, solve, fall)
        for j, (name, v) in enumerate(zip(MOVES, values)):
            out[2 * j] = float(self.move(name) is not None)
            out[2 * j + 1] = min(max(v, 0.0), 1.0)
        at = 2 * len(MOVES)
        since = (self.turn - self.own[-1]) if self.own else 10
        out[at] = min(since, 10) / 10
        out[at + 1] = min(sum(1 for t in self.own if self.turn - t < 10), 3) / 3
        out[at + 2] = float(bool(self.own) and self.own[-1] == self.turn - 1)
        before = proxy(self.history[-2]).mean() if len(self.history) > 1 else agree.mean()
        out[at + 3] = min(max(0.5 + float(agree.mean() - before), 0.0), 1.0)
        return out


__all__ = ["DROP_WINDOW", "MOVES", "Moves", "N_MOVE_FEATURES", "plurality", "proxy"]
