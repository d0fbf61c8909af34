"""The persuadee's mind in live persuasion v2: what it says is evidence about its mind, not a label.

v2 keeps v1's hidden state (seed 001's BDI reading: desire, belief about the persuader, intention =
the concern it acts on; :mod:`tom_envs.persuasion.mind`) and v1's effect of the six principles,
and changes what the persuadee *shows* and how it reacts to bad lines:

* **Concerns are voiced noisily, at persona-specific rates.** After each line the persuadee names
  its real concern with probability ``candour[b]`` (lower when wary), names its *front* concern
  (the excuse this persona reaches for: the thrifty blame the price, the busy their diary) instead
  with probability ``mislead[b]`` when that is not its real one, and otherwise says nothing about
  a concern. The words of a voiced concern are often indirect (:mod:`tom_envs.persuasion.mind_text`).
* **Trust is shown in tone, with persona-specific noise.** ``cold`` when wary and ``flat`` when
  trusting, each shown as the other with probability ``tone_noise``; a landed argument shows
  ``warm`` with probability :data:`WARM_SHOWN` (else the belief's tone).
* **Bad lines have consequences** (v2's reader, :class:`~tom_envs.persuasion.reader.ReaderV2`, hears them):
  :data:`STUFFED` (a line that names several principles at once: a pitch) lands nothing and turns a
  trusting persuadee wary with probability ``reactance``; :data:`HOSTILE` (an insult) lands nothing,
  turns it wary for sure and, with probability ``reactance``, drops a ``considering`` desire back to
  ``no``. Nonsense reads as :data:`~tom_envs.persuasion.mind.NOTHING` (a turn spent).

The persona's v2 traits are :class:`V2Traits` (``personas.json``'s ``"v2"`` entry of each
archetype). :class:`MindModelV2` compiles a family into the same finite POMDP interface as v1
(``kernel``, ``success``, ``initial``, ``opening``), with nine strategies: the six principles,
``NOTHING``, ``STUFFED``, ``HOSTILE``. The exact references of :mod:`tom_envs.persuasion.planning`
and the bounds of :mod:`tom_envs.persuasion.planning_v2` compute with it; the v2 envs sample from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tom_envs.persuasion.mind import (
    ANSWERS,
    CONCERNS,
    HIT,
    LIKING,
    NOTHING,
    OFF_TARGET,
    TONES,
    TOPICS,
    TRUSTING,
    WARY,
    COLD,
    CONSIDERING,
    FLAT,
    WARM,
    Family,
    MindModel,
    MindPersona,
    MindState,
    cached_model,
)
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona

STUFFED = NOTHING + 1  # a line naming several principles at once: a sales pitch
HOSTILE = NOTHING + 2  # an insult, or contempt for the persuadee
N_STRATEGIES_V2 = HOSTILE + 1
#: What the persuadee heard, by strategy index (v2).
HEARD_V2: tuple[str, ...] = (*PRINCIPLES, "nothing", "stuffed", "hostile")
WARM_SHOWN = 0.8


@dataclass(frozen=True)
class V2Traits:
    """How a v2 persona shows its mind and reacts to bad lines.

    Attributes:
        candour: probability of naming the real concern after a line, when (trusting, wary).
        mislead: probability of naming the ``front`` concern instead, when (trusting, wary) (only
            when the real concern is another one).
        front: the concern (index into :data:`~tom_envs.persuasion.mind.CONCERNS`) named when misleading.
        tone_noise: probability that the tone shows the other belief (trusting reads cold, wary flat).
        reactance: probability that a stuffed line turns a trusting persuadee wary, and that an
            insult drops a ``considering`` desire to ``no``.
        leave: probability that a wary persuadee ends the conversation after a line that did not land
            (twice that, at most 1, after an insult): the persuasion failed.
        drift: probability that, after a line that did not land, another concern takes over (drawn
            from the persona's concern weights without the current one): minds move on their own.
    """

    candour: tuple[float, float]
    mislead: tuple[float, float]
    front: int
    tone_noise: float
    reactance: float
    leave: float = 0.0
    drift: float = 0.0

    def check(self, name: str) -> None:
        probs = {
            "candour[trusting]": self.candour[0],
            "candour[wary]": self.candour[1],
            "mislead[trusting]": self.mislead[0],
            "mislead[wary]": self.mislead[1],
            "tone_noise": self.tone_noise,
            "reactance": self.reactance,
            "leave": self.leave,
            "drift": self.drift,
        }
        for key, value in probs.items():
            if not 0.0 <= float(value) <= 1.0:
                raise InvalidPersona(f"persona {name!r}: v2 {key} is a probability in [0, 1], got {value!r}")
        for b in (TRUSTING, WARY):
            if self.candour[b] + self.mislead[b] > 1.0 + 1e-12:
                raise InvalidPersona(
                    f"persona {name!r}: v2 candour + mislead is at most 1 (the rest is silence), "
                    f"got {self.candour[b]} + {self.mislead[b]}"
                )
        if not isinstance(self.front, int) or not 0 <= self.front < len(CONCERNS):
            raise InvalidPersona(
                f"persona {name!r}: v2 front is a concern index 0..{len(CONCERNS) - 1}, got {self.front!r}"
            )
        if self.tone_noise >= 0.5:
            raise InvalidPersona(
                f"persona {name!r}: v2 tone_noise below 0.5 (else tone says the opposite), got {self.tone_noise}"
            )


@dataclass(frozen=True)
class MindPersonaV2(MindPersona):
    """A v1 persona (:class:`~tom_envs.persuasion.mind.MindPersona`) with its v2 traits."""

    v2: V2Traits = V2Traits((0.5, 0.2), (0.1, 0.3), 0, 0.2, 0.5)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.v2.check(self.name)


class MindModelV2(MindModel):
    """A family of :class:`MindPersonaV2` compiled into the v2 POMDP (same state indexing and attributes as
    :class:`~tom_envs.persuasion.mind.MindModel`; ``kernel`` has shape (9, S, S, 18))."""

    n_strategies = N_STRATEGIES_V2

    def __init__(self, family: Family) -> None:  # noqa: D107 -- the parent's compile, with v2's moves and replies
        for p in family.personas:
            if not isinstance(p, MindPersonaV2):
                raise InvalidPersona(
                    f"family {family.name!r}: v2 needs MindPersonaV2 personas (v2 traits), got "
                    f"{type(p).__name__} {p.name!r}"
                )
        super().__init__(family)

    @staticmethod
    def _moves(persona: MindPersona, d: int, b: int, c: int, a: int) -> list[tuple[int, int, np.ndarray, float]]:
        return moves_v2(persona, d, b, c, a)  # type: ignore[arg-type]

    @staticmethod
    def _stays(persona: MindPersona, a: int, step: int, b2: int) -> float:
        """A wary persuadee may walk away after a line that did not land (failure)."""
        if step <= 0 and b2 == WARY:
            return 1.0 - min(1.0, persona.v2.leave * (2.0 if a == HOSTILE else 1.0))  # type: ignore[attr-defined]
        return 1.0

    @staticmethod
    def _reply(persona: MindPersona, landed: bool, belief: int, concern: int) -> np.ndarray:
        return reply_v2(persona, landed, belief, concern)  # type: ignore[arg-type]

    @staticmethod
    def _pick(cum: np.ndarray, u: float) -> int | None:
        """As v1, but a row that sums below 1 leaves the rest to walking away (None)."""
        if u >= cum[-1]:
            if cum[-1] < 1.0 - 1e-12:
                return None  # walked away
            u = cum[-1] * (1.0 - 1e-15)  # float rounding at the very end of the row
        return int(np.searchsorted(cum, u, side="right"))


def reply_v2(persona: MindPersonaV2, landed: bool, belief: int, concern: int) -> np.ndarray:
    """P(reply) (tone x topic, flattened like :func:`~tom_envs.persuasion.mind.obs_index`) of a v2 persuadee."""
    t = persona.v2
    shown = np.zeros(len(TONES))
    fit = COLD if belief == WARY else FLAT
    shown[fit], shown[FLAT + COLD - fit] = 1.0 - t.tone_noise, t.tone_noise
    tone = np.zeros(len(TONES))
    if landed:
        tone[WARM] = WARM_SHOWN
        tone += (1.0 - WARM_SHOWN) * shown
    else:
        tone = shown
    topic = np.zeros(len(TOPICS))
    topic[1 + concern] += t.candour[belief]
    if t.front != concern:
        topic[1 + t.front] += t.mislead[belief]
        topic[0] = 1.0 - t.candour[belief] - t.mislead[belief]
    else:
        topic[0] = 1.0 - t.candour[belief]
    return np.outer(tone, topic).ravel()


def reply_allowed_v2(persona: MindPersonaV2, state: MindState, landed: bool, drawn: int, reply: int) -> bool:
    """Whether a v2 persuadee at ``state`` could give ``reply`` (tone x topic): any reply its v2 reply
    distribution gives a positive probability (tone noise, misleading fronts and silence included)."""
    return bool(reply_v2(persona, landed, state.belief, state.concern)[reply] > 0)


def moves_v2(persona: MindPersonaV2, d: int, b: int, c: int, a: int) -> list[tuple[int, int, np.ndarray, float]]:
    """(desire step -1/0/+1, next belief, next-concern distribution, probability) of strategy ``a``."""
    fresh = persona.concern_probs.copy()
    fresh[c] = 0.0
    fresh /= fresh.sum()
    keep = (1.0 - persona.v2.drift) * np.eye(len(CONCERNS))[c] + persona.v2.drift * fresh
    r = persona.v2.reactance
    if a == NOTHING:
        return [(0, b, keep, 1.0)]
    if a == STUFFED:
        if b == WARY:
            return [(0, WARY, keep, 1.0)]
        return [(0, WARY, keep, r), (0, TRUSTING, keep, 1.0 - r)]
    if a == HOSTILE:
        if d == CONSIDERING:
            return [(-1, WARY, keep, r), (0, WARY, keep, 1.0 - r)]
        return [(0, WARY, keep, 1.0)]
    if a == LIKING:
        if b == WARY:
            return [(0, TRUSTING, keep, persona.warmth), (0, WARY, keep, 1.0 - persona.warmth)]
        return [(0, TRUSTING, keep, 1.0)]
    if ANSWERS[a] == c:
        return [(1, b, fresh, HIT[b]), (0, b, keep, 1.0 - HIT[b])]
    if b == WARY:
        return [(0, WARY, keep, 1.0)]
    miss = 1.0 - OFF_TARGET
    return [
        (1, TRUSTING, keep, OFF_TARGET),
        (0, WARY, keep, miss * persona.touchiness),
        (0, TRUSTING, keep, miss * (1.0 - persona.touchiness)),
    ]


class UnknownPersona(InvalidPersona):
    """A persona name that none of an env's families has (``personas=``)."""


def restrict_personas(families: tuple[Family, ...], personas: Any) -> tuple[Family, ...]:
    """``families`` (in the same order, so a family keeps its index in the observation) each keeping only
    the personas named in ``personas`` (a name or a list of names), its prior renormalised over them: the
    way to hold personas out of training (``PersuasionMindV2Env(personas=...)``; v1 and the two-seat envs
    take the result as ``families=``). Works on v1's and v2's families alike.

    Raises:
        UnknownPersona: a name no family has (the known names are listed).
        InvalidPersona: ``personas`` empty or not names, or a family left with none of them.
    """
    names = [personas] if isinstance(personas, str) else personas
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise InvalidPersona(f"personas is a persona name or a non-empty list of names, got {personas!r}")
    known = sorted({p.name for f in families for p in f.personas})
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownPersona(
            f"unknown persona(s) {', '.join(map(repr, unknown))}; the families here have {', '.join(known)}"
        )
    out = []
    for f in families:
        keep = [i for i, p in enumerate(f.personas) if p.name in names]
        if not keep:
            raise InvalidPersona(
                f"family {f.name!r} ({', '.join(p.name for p in f.personas)}) has none of the "
                f"personas {', '.join(names)}; name one of its personas too, or leave the family out "
                "(families=...)"
            )
        out.append(
            Family(f.name, f.title, tuple(f.personas[i] for i in keep), tuple(f.weights[i] for i in keep), f.scenarios)
        )
    return tuple(out)


_MODELS: dict[str, MindModelV2] = {}


def model_v2_for(family: Family) -> MindModelV2:
    """The (cached) compiled v2 model of ``family``."""
    return cached_model(_MODELS, family, MindModelV2)  # type: ignore[return-value]


__all__ = [
    "HEARD_V2",
    "HOSTILE",
    "MindModelV2",
    "MindPersonaV2",
    "N_STRATEGIES_V2",
    "STUFFED",
    "UnknownPersona",
    "V2Traits",
    "WARM_SHOWN",
    "model_v2_for",
    "moves_v2",
    "reply_allowed_v2",
    "reply_v2",
    "restrict_personas",
]
