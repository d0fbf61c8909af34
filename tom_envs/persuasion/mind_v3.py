"""The persuadee's mind in live persuasion v3: two hidden traits that show only across replies.

v2's persuadee could be read from its last reply: an exact best *reactive* table (no memory) came
within 1.5 points of the Bayes-optimal persuader (issue 39). v3 is built so that tracking a mind
across the dialogue pays and reacting to the last reply does not:

* the persuadee has two hidden traits, drawn at reset and fixed for the episode: its **source**
  (whose word it trusts: one of the family's two principles, e.g. authority -- experts -- or
  consensus -- people like it) and its **stake** (what is at stake for it: one of the family's two
  concerns, e.g. doubt or effort);
* every reply speaks of **one** of the two traits (the source with the persona's ``source_talk``
  probability, else the stake) and names its value truthfully with the persona's ``candour``,
  otherwise the other value. No single reply shows both traits, so a reply alone never tells which
  pitch is right ("signals that only add up");
* the persuader either **listens** (action 0: rapport, an open question) or **pitches** a principle
  framed on a concern (actions 1..4: ``1 + 2 * source + stake``). A pitch ends the dialogue: the
  persuadee agrees with the persona's ``agreeable`` probability when both the principle and the
  concern are its own, and refuses otherwise. While it listens, the persuadee may walk away
  (``leave`` per reply);
* nothing the persuader does changes what the persuadee says next, so a memory-less persuader
  cannot carry a reading forward in its own actions (v2's "strategy heard" channel): its only
  carrier is who is still talking, and the exact references count it.

A persona (:class:`PersonaV3`) sets the traits' prior and the four rates; a family
(:class:`FamilyV3`) names its two principles, its two concerns, its personas and their prior,
and reuses v1's scenarios. :class:`ModelV3` compiles a family into arrays -- one row per hidden
type (persona, source, stake) -- the one implementation of the dynamics: the env samples from it
and the exact references (:mod:`tom_envs.persuasion.planning_v3`) compute with it.

Provenance: the design and every number are the tom-envs authors' (001's principles and concerns
as names only).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tom_envs.persuasion.mind import CONCERNS
from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona
from tom_envs.persuasion.scenarios import FAMILIES as V1_FAMILIES, Scenario, named_family

LISTEN = 0
N_ACTIONS_V3 = 5  # listen + 2 principles x 2 concerns
#: A reply: 0/1 speaks of the source (its value), 2/3 of the stake (its value).
N_CUES = 4
TRAITS = ("source", "stake")


def pitch_action(source: int, stake: int) -> int:
    """The action pitching the family's principle ``source`` framed on its concern ``stake``."""
    return 1 + 2 * source + stake


def pitch_of(action: int) -> tuple[int, int] | None:
    """``(source, stake)`` of a pitch action; None for listening."""
    return None if action == LISTEN else divmod(action - 1, 2)


@dataclass(frozen=True)
class PersonaV3:
    """A v3 persona: the traits' prior and how it talks.

    Attributes:
        name: a key (public only in the episode summary).
        description: one line, for a simulated persuadee's prompt.
        prior: probabilities of (source, stake) = (0,0), (0,1), (1,0), (1,1).
        candour: probability that a reply names the trait's true value (else the other value).
        source_talk: probability that a reply speaks of the source (else of the stake).
        agreeable: probability of agreeing to a pitch of its own source and stake.
        leave: probability of walking away after each reply it gives to listening.
    """

    name: str
    description: str
    prior: tuple[float, float, float, float]
    candour: float
    source_talk: float
    agreeable: float
    leave: float

    def __post_init__(self) -> None:
        prior = np.asarray(self.prior, dtype=float)
        if prior.shape != (4,) or (prior < 0).any() or not np.isclose(prior.sum(), 1.0):
            raise InvalidPersona(
                f"persona {self.name!r}: prior is 4 probabilities over (source, stake) summing to 1, got {self.prior!r}"
            )
        for key in ("candour", "source_talk", "agreeable", "leave"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise InvalidPersona(f"persona {self.name!r}: {key} is a probability in [0, 1], got {value!r}")
        if self.candour < 0.5:
            raise InvalidPersona(
                f"persona {self.name!r}: candour {self.candour} < 0.5 would make its replies "
                "point away from its traits; use a value in [0.5, 1]"
            )


@dataclass(frozen=True)
class FamilyV3:
    """A v3 scenario family: its two principles (sources), two concerns (stakes), personas and scenarios."""

    name: str
    title: str
    sources: tuple[str, str]
    stakes: tuple[str, str]
    personas: tuple[PersonaV3, ...]
    weights: tuple[float, ...]
    scenarios: tuple[Scenario, ...]

    def __post_init__(self) -> None:
        if len(self.sources) != 2 or any(s not in PRINCIPLES for s in self.sources) or len(set(self.sources)) != 2:
            raise InvalidPersona(
                f"family {self.name!r}: sources are two different principles of {PRINCIPLES}, got {self.sources!r}"
            )
        if len(self.stakes) != 2 or any(s not in CONCERNS for s in self.stakes) or len(set(self.stakes)) != 2:
            raise InvalidPersona(
                f"family {self.name!r}: stakes are two different concerns of {CONCERNS}, got {self.stakes!r}"
            )
        if (
            not self.personas
            or len(self.weights) != len(self.personas)
            or min(self.weights) < 0
            or sum(self.weights) <= 0
        ):
            raise InvalidPersona(
                f"family {self.name!r}: one non-negative weight per persona (not all zero), got "
                f"{len(self.weights)} weights for {len(self.personas)} personas"
            )
        if not self.scenarios:
            raise InvalidPersona(f"family {self.name!r} has no scenarios")

    def pitch_name(self, action: int) -> str:
        """``"listen"`` or ``"<principle> on <concern>"``."""
        pitch = pitch_of(action)
        return "listen" if pitch is None else f"{self.sources[pitch[0]]} on {self.stakes[pitch[1]]}"


@dataclass(frozen=True)
class ModelV3:
    """A family compiled into arrays, one row per hidden type ``(persona, source, stake)``.

    Attributes:
        family: the family.
        types: ``(persona, source, stake)`` per row.
        prior: the prior over rows.
        cue: ``cue[row, reply]``: probability of each reply (:data:`N_CUES`) to listening.
        agree: probability of agreeing to the row's own pitch.
        leave: probability of walking away after a reply.
        own_pitch: the row's own pitch action.
    """

    family: FamilyV3
    types: tuple[tuple[int, int, int], ...]
    prior: np.ndarray
    cue: np.ndarray
    agree: np.ndarray
    leave: np.ndarray
    own_pitch: np.ndarray

    @cached_property
    def pays(self) -> np.ndarray:
        """``pays[action, row]``: probability that ``action`` now wins the row (0 for listening)."""
        out = np.zeros((N_ACTIONS_V3, len(self.types)))
        out[self.own_pitch, np.arange(len(self.types))] = self.agree
        return out

    def row_of(self, persona: int, source: int, stake: int) -> int:
        return self.types.index((persona, source, stake))


def compile_family(family: FamilyV3) -> ModelV3:
    """The arrays of ``family`` (see :class:`ModelV3`)."""
    weights = np.asarray(family.weights, dtype=float) / float(sum(family.weights))
    types, prior, cue, agree, leave, own = [], [], [], [], [], []
    for k, persona in enumerate(family.personas):
        for j, (source, stake) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            row = np.zeros(N_CUES)
            for trait, value, share in ((0, source, persona.source_talk), (1, stake, 1.0 - persona.source_talk)):
                row[2 * trait + value] += share * persona.candour
                row[2 * trait + 1 - value] += share * (1.0 - persona.candour)
            types.append((k, source, stake))
            prior.append(weights[k] * persona.prior[j])
            cue.append(row)
            agree.append(persona.agreeable)
            leave.append(persona.leave)
            own.append(pitch_action(source, stake))
    prior_arr = np.asarray(prior)
    return ModelV3(
        family,
        tuple(types),
        prior_arr / prior_arr.sum(),
        np.asarray(cue),
        np.asarray(agree),
        np.asarray(leave),
        np.asarray(own, dtype=np.int64),
    )


_MODELS: dict[int, ModelV3] = {}


def model_v3_for(family: FamilyV3) -> ModelV3:
    """The compiled model of ``family`` (cached per family object)."""
    if not isinstance(family, FamilyV3):
        raise InvalidPersona(
            f"live persuasion v3 takes v3 families (tom_envs.persuasion.mind_v3.FamilyV3), got "
            f"{type(family).__name__}; v1/v2 families have no source or stake"
        )
    key = id(family)
    if key not in _MODELS:
        _MODELS[key] = compile_family(family)
    return _MODELS[key]


# ---------------------------------------------------------------------- the built-in families (our design choices)
_PERSONAS_V3 = {
    # name: (description, prior over (source, stake), candour, source_talk, agreeable, leave)
    "skeptic": (
        "You need evidence before you believe anything is worth it.",
        (0.3, 0.2, 0.3, 0.2),
        0.85,
        0.5,
        0.9,
        0.0,
    ),
    "cautious": ("You worry about what could go wrong and take your time.", (0.2, 0.3, 0.2, 0.3), 0.8, 0.4, 0.85, 0.03),
    "procrastinator": (
        "You like the idea in principle but always find a reason to wait.",
        (0.25, 0.25, 0.25, 0.25),
        0.9,
        0.6,
        0.95,
        0.02,
    ),
    "thrifty": (
        "You count every euro and every hour; you want to know what you get back.",
        (0.35, 0.15, 0.3, 0.2),
        0.8,
        0.55,
        0.9,
        0.02,
    ),
    "busy": (
        "Your calendar is full and every new thing competes for your time.",
        (0.25, 0.25, 0.25, 0.25),
        0.85,
        0.45,
        0.8,
        0.0,
    ),
    "conformist": (
        "You care a lot about what people around you do and think.",
        (0.2, 0.3, 0.2, 0.3),
        0.9,
        0.5,
        0.9,
        0.04,
    ),
}

_FAMILY_TRAITS = {
    # family: (sources, stakes)
    "health": (("authority", "consensus"), ("doubt", "effort")),
    "charity": (("reciprocity", "consensus"), ("cost", "timing")),
    "shopping": (("scarcity", "authority"), ("cost", "doubt")),
    "leisure": (("consensus", "commitment"), ("timing", "fit")),
    "work": (("authority", "commitment"), ("effort", "doubt")),
}


def _persona(name: str) -> PersonaV3:
    description, prior, candour, talk, agreeable, leave = _PERSONAS_V3[name]
    return PersonaV3(name, description, prior, candour, talk, agreeable, leave)


def _families_v3() -> tuple[FamilyV3, ...]:
    out = []
    for fam in V1_FAMILIES:  # v1's domains, persona weights and scenarios
        sources, stakes = _FAMILY_TRAITS[fam.name]
        out.append(
            FamilyV3(
                fam.name,
                fam.title,
                sources,
                stakes,
                tuple(_persona(p.name) for p in fam.personas),
                tuple(fam.weights),
                tuple(fam.scenarios),
            )
        )
    return tuple(out)


#: v3's families: v1's domains, scenarios and persona weights; two principles and two concerns each.
FAMILIES_V3: tuple[FamilyV3, ...] = _families_v3()


def family_v3_named(name: str) -> FamilyV3:
    """The built-in v3 family called ``name``."""
    return named_family(FAMILIES_V3, name)


__all__ = [
    "FAMILIES_V3",
    "LISTEN",
    "N_ACTIONS_V3",
    "N_CUES",
    "TRAITS",
    "FamilyV3",
    "ModelV3",
    "PersonaV3",
    "compile_family",
    "family_v3_named",
    "model_v3_for",
    "pitch_action",
    "pitch_of",
]
