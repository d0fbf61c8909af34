"""The persuadee's mind in live persuasion v1: hidden desire, belief and intention (seed 001's BDI).

001 (PersuasiveToM) tracks three mental states of the persuadee turn by turn: its *desire*
(refusing, hesitating, persuaded), its *belief* about the persuader's attitude, and its
*intention* in the dialogue -- what it is after or worried about ("Oliver is concerned about
failure", 001 Figure 7). Its Table 3 maps the six persuasion principles to the intentions they
serve. Here these three states are the hidden state of a simulated persuadee:

* **desire** ``d`` in ``no < considering < yes``; ``yes`` is success (the episode ends);
* **belief** ``b`` in ``trusting`` (the persuader means well) / ``wary`` (the persuader is pushing);
* **intention** ``c``: the concern the persuadee is acting on, one of :data:`CONCERNS`. Each concern
  is answered by one principle (:data:`ANSWERS`): reciprocity answers *cost*, scarcity *timing*,
  consensus *fit*, authority *doubt*, commitment *effort*; liking answers none but restores trust.

One turn, the persuader applying strategy ``a`` (a principle, or :data:`NOTHING` when the
persuadee could read no strategy in the words):

* ``a`` answers the concern: it *lands* with probability ``HIT[b]`` (0.85 trusting, 0.30 wary).
  Landing raises the desire one level; the concern is settled and a new one surfaces, drawn from
  the persona's concern weights without the settled one.
* liking: a wary persuadee becomes trusting with probability ``warmth`` (persona); nothing else.
* any other principle (pushing on a point the persuadee does not care about): lands with
  probability ``OFF_TARGET`` (0.05) when trusting (the concern stays); when it does not land, a
  trusting persuadee turns wary with probability ``touchiness`` (persona). A wary one stays wary.
* :data:`NOTHING`: nothing changes.

The reply (the observation) has a *tone* and a *topic*. Tone: ``warm`` after a landing; otherwise
``flat`` when trusting and ``cold`` when wary, each shown as the other with probability
``TONE_NOISE`` (0.15). Topic: the persuadee voices its (new) concern with probability
``voice[b]`` (persona: people say more when they trust), else says nothing about it. The
persuadee also opens the dialogue with a reply of this kind (tone from its belief). A persona
(:class:`MindPersona`) sets the initial distribution (``reluctance``: desire ``no``, else
``considering``; ``wariness``: belief ``wary``; concern weights) and the traits above.

A scenario family (:class:`Family`, the domains of :mod:`tom_envs.persuasion.scenarios`) has a
prior over personas. :class:`MindModel` compiles a family into a finite POMDP -- hidden state
(persona, desire, belief, concern), 6 principles (+ :data:`NOTHING`), 18 replies -- the one
implementation of the dynamics: the env samples from it, the exact references
(:mod:`tom_envs.persuasion.planning`) and the belief-tracking persuaders compute with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
import numpy as np

from tom_envs.persuasion.principles import PRINCIPLES, InvalidPersona

MIND_DESIRES: tuple[str, ...] = ("no", "considering", "yes")
BELIEFS: tuple[str, ...] = ("trusting", "wary")
#: The persuadee's intentions: the concern it acts on (index = the principle that answers it).
CONCERNS: tuple[str, ...] = ("cost", "timing", "fit", "doubt", "effort")
#: What each concern means, in the persuadee's words (used in prompts and docs).
CONCERN_TEXT: dict[str, str] = {
    "cost": "wants to know what is in it for them (worried about the cost)",
    "timing": "sees no reason to do it now rather than later",
    "fit": "wonders whether people like them do this (what others do and think)",
    "doubt": "doubts that it is worth it or works at all",
    "effort": "is afraid of committing to something big",
}
#: principle index -> the concern it answers (liking answers none).
ANSWERS: dict[int, int] = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4}
LIKING = 5
NOTHING = len(PRINCIPLES)  # the persuadee read no strategy in the words
N_STRATEGIES = len(PRINCIPLES) + 1  # the six principles and NOTHING
#: What the persuadee heard, by strategy index (v1).
HEARD: tuple[str, ...] = (*PRINCIPLES, "nothing")
NO, CONSIDERING, YES = 0, 1, 2
TRUSTING, WARY = 0, 1
TONES: tuple[str, ...] = ("flat", "cold", "warm")
FLAT, COLD, WARM = 0, 1, 2
#: Topics of a reply: 0 nothing about a concern, 1 + c the concern c voiced.
TOPICS: tuple[str, ...] = ("none", *CONCERNS)
N_OBS = len(TONES) * len(TOPICS)
HIT: tuple[float, float] = (0.85, 0.30)
OFF_TARGET = 0.05
TONE_NOISE = 0.15


def obs_index(tone: int, topic: int) -> int:
    """The reply index of (tone, topic)."""
    return tone * len(TOPICS) + topic


def obs_parts(o: int) -> tuple[int, int]:
    """(tone, topic) of reply index ``o``."""
    return divmod(int(o), len(TOPICS))


@dataclass(frozen=True)
class MindPersona:
    """The hidden traits of a simulated persuadee (v1).

    Attributes:
        name: a label (never in the observation).
        description: one line in the persuadee's own terms (the persuadee seat's prompt).
        concerns: weights of the five :data:`CONCERNS` (initial concern and the ones that surface).
        reluctance: probability that the desire starts at ``no`` (else ``considering``).
        wariness: probability that the belief starts ``wary``.
        voice: probability of voicing the concern when (trusting, wary).
        warmth: probability that liking turns a wary persuadee trusting.
        touchiness: probability that an off-target push turns a trusting persuadee wary.
    """

    name: str
    description: str
    concerns: tuple[float, float, float, float, float]
    reluctance: float = 0.6
    wariness: float = 0.3
    voice: tuple[float, float] = (0.6, 0.25)
    warmth: float = 0.7
    touchiness: float = 0.35

    def __post_init__(self) -> None:
        probs = {
            "reluctance": self.reluctance,
            "wariness": self.wariness,
            "warmth": self.warmth,
            "touchiness": self.touchiness,
            "voice[trusting]": self.voice[0],
            "voice[wary]": self.voice[1],
        }
        for key, value in probs.items():
            if not 0.0 <= float(value) <= 1.0:
                raise InvalidPersona(f"persona {self.name!r}: {key} is a probability in [0, 1], got {value!r}")
        if len(self.concerns) != len(CONCERNS) or any(w < 0 for w in self.concerns) or sum(self.concerns) <= 0:
            raise InvalidPersona(
                f"persona {self.name!r}: concerns are {len(CONCERNS)} non-negative weights "
                f"({', '.join(CONCERNS)}) with a positive sum, got {self.concerns!r}"
            )
        if sum(1 for w in self.concerns if w > 0) < 2:
            raise InvalidPersona(
                f"persona {self.name!r}: give at least two concerns a positive weight (a settled "
                "concern is replaced by another one)"
            )

    @property
    def concern_probs(self) -> np.ndarray:
        w = np.asarray(self.concerns, dtype=np.float64)
        return w / w.sum()


@dataclass(frozen=True)
class Family:
    """A scenario family: a domain's scenarios and its prior over personas.

    Attributes:
        name: the family's key (public: the scenario tells the persuader its domain).
        title: a readable name.
        personas: the personas of this domain.
        weights: their prior probabilities (normalised here).
        scenarios: the scenario texts (:class:`tom_envs.persuasion.scenarios.Scenario`).
    """

    name: str
    title: str
    personas: tuple[MindPersona, ...]
    weights: tuple[float, ...]
    scenarios: tuple = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if (
            not self.personas
            or len(self.weights) != len(self.personas)
            or any(w < 0 for w in self.weights)
            or sum(self.weights) <= 0
        ):
            raise InvalidPersona(f"family {self.name!r}: one non-negative weight per persona, with a positive sum")

    @property
    def prior(self) -> np.ndarray:
        w = np.asarray(self.weights, dtype=np.float64)
        return w / w.sum()

    def persona_index(self, name: str) -> int:
        for i, p in enumerate(self.personas):
            if p.name == name:
                return i
        raise InvalidPersona(
            f"persona {name!r} is not in family {self.name!r} ({', '.join(p.name for p in self.personas)})"
        )


@dataclass(frozen=True)
class MindState:
    """One persuadee's hidden state (persona index within the family, desire, belief, concern)."""

    persona: int
    desire: int
    belief: int
    concern: int


class MindModel:
    """A family compiled into a finite POMDP over (persona, desire, belief, concern).

    Attributes:
        family: the family.
        n_states: number of non-success hidden states ``S`` (personas x 2 desires x 2 beliefs x 5 concerns).
        kernel: ``K[a, s, s2, o]`` = P(next state s2 and reply o | s, strategy a) for the non-success
            outcomes; shape (7, S, S, 18) (a = 6 is :data:`NOTHING`).
        success: ``succ[a, s]`` = P(the persuadee agrees | s, a); shape (7, S).
        initial: the prior over states at the start (persona prior x initial desire/belief/concern).
        opening: ``Z0[s, o]`` = P(opening reply o | s).
    """

    #: How many strategies the kernel has (v1: the six principles and NOTHING).
    n_strategies = N_STRATEGIES

    def __init__(self, family: Family) -> None:
        self.family = family
        self.n_personas = len(family.personas)
        self.n_states = self.n_personas * 2 * 2 * len(CONCERNS)
        S, C = self.n_states, len(CONCERNS)
        K = np.zeros((self.n_strategies, S, S, N_OBS))
        succ = np.zeros((self.n_strategies, S))
        init = np.zeros(S)
        Z0 = np.zeros((S, N_OBS))
        for k, persona in enumerate(family.personas):
            pi = persona.concern_probs
            for d in (NO, CONSIDERING):
                for b in (TRUSTING, WARY):
                    for c in range(C):
                        s = self.index(MindState(k, d, b, c))
                        init[s] = (
                            family.prior[k]
                            * (persona.reluctance if d == NO else 1 - persona.reluctance)
                            * (persona.wariness if b == WARY else 1 - persona.wariness)
                            * pi[c]
                        )
                        Z0[s] = self._reply(persona, False, b, c)
                        for a in range(self.n_strategies):
                            for step, b2, concern_dist, prob in self._moves(persona, d, b, c, a):
                                if prob <= 0.0:
                                    continue
                                if step > 0 and d == CONSIDERING:
                                    succ[a, s] += prob
                                    continue
                                d2 = min(max(d + step, NO), CONSIDERING)
                                prob *= self._stays(persona, a, step, b2)
                                for c2 in np.flatnonzero(concern_dist):
                                    s2 = self.index(MindState(k, d2, b2, int(c2)))
                                    K[a, s, s2] += prob * concern_dist[c2] * self._reply(persona, step > 0, b2, int(c2))
        for arr in (K, succ, init, Z0):
            arr.flags.writeable = False
        self.kernel, self.success, self.initial, self.opening = K, succ, init, Z0

    # ------------------------------------------------------------------ what a version changes (v2 overrides)
    @staticmethod
    def _moves(persona: MindPersona, d: int, b: int, c: int, a: int) -> list[tuple[int, int, np.ndarray, float]]:
        """(desire step, next belief, next-concern distribution, probability) of strategy ``a`` at (d, b, c);
        a step up from ``considering`` is agreement."""
        return _moves(persona, b, c, a)

    @staticmethod
    def _stays(persona: MindPersona, a: int, step: int, b2: int) -> float:
        """The probability that the persuadee stays in the conversation after such a move (v1: always)."""
        return 1.0

    @staticmethod
    def _reply(persona: MindPersona, landed: bool, belief: int, concern: int) -> np.ndarray:
        tone = np.zeros(len(TONES))
        if landed:
            tone[WARM] = 1.0
        else:
            fit = COLD if belief == WARY else FLAT
            tone[fit], tone[FLAT + COLD - fit] = 1.0 - TONE_NOISE, TONE_NOISE
        topic = np.zeros(len(TOPICS))
        v = persona.voice[belief]
        topic[0], topic[1 + concern] = 1.0 - v, v
        return np.outer(tone, topic).ravel()

    @staticmethod
    def _pick(cum: np.ndarray, u: float) -> int | None:
        """The outcome index of the uniform draw ``u`` in the cumulative row ``cum`` (v1: the last one past
        the end, float rounding); None would be the persuadee walking away."""
        return min(int(np.searchsorted(cum, u, side="right")), cum.size - 1)

    # ------------------------------------------------------------------ indexing
    def index(self, state: MindState) -> int:
        return ((state.persona * 2 + state.desire) * 2 + state.belief) * len(CONCERNS) + state.concern

    def state(self, s: int) -> MindState:
        rest, c = divmod(int(s), len(CONCERNS))
        rest, b = divmod(rest, 2)
        k, d = divmod(rest, 2)
        return MindState(k, d, b, c)

    @cached_property
    def transitions(self) -> np.ndarray:
        """``P[a, s, s2]``: the kernel summed over replies."""
        return self.kernel.sum(axis=-1)

    @cached_property
    def _flat(self) -> np.ndarray:
        return self.kernel.reshape(self.kernel.shape[0], self.n_states, self.n_states * N_OBS)

    @cached_property
    def marginals(self) -> dict[str, np.ndarray]:
        """0/1 matrices mapping a state distribution to each literal-ToM target's distribution."""
        out = {
            "persona": np.zeros((self.n_states, self.n_personas)),
            "desire": np.zeros((self.n_states, 3)),
            "belief": np.zeros((self.n_states, 2)),
            "intention": np.zeros((self.n_states, len(CONCERNS))),
        }
        for s in range(self.n_states):
            st = self.state(s)
            out["persona"][s, st.persona] = out["desire"][s, st.desire] = 1.0
            out["belief"][s, st.belief] = out["intention"][s, st.concern] = 1.0
        return out

    # ------------------------------------------------------------------ filtering
    def open_belief(self, reply: int) -> np.ndarray:
        """The posterior over states after the opening reply."""
        joint = self.initial * self.opening[:, reply]
        return _normalised(joint, "opening reply")

    def joint(self, belief: np.ndarray, strategy: int) -> np.ndarray:
        """``J[s2, o]`` = P(not agreeing, next state s2, reply o | belief, strategy)."""
        return (belief @ self._flat[strategy]).reshape(self.n_states, N_OBS)

    def update(self, belief: np.ndarray, strategy: int, reply: int) -> np.ndarray:
        """The posterior after ``strategy`` drew ``reply`` (and no agreement)."""
        return _normalised(self.joint(belief, strategy)[:, reply], "reply")

    # ------------------------------------------------------------------ sampling
    def sample_initial(self, rng: np.random.Generator, persona: int | None = None) -> tuple[int, int]:
        """(state, opening reply) drawn from the prior (or from ``persona``'s part of it)."""
        p = np.array(self.initial)
        if persona is not None:
            mask = np.array([self.state(s).persona == persona for s in range(self.n_states)])
            p = np.where(mask, p, 0.0)
        s = _draw(rng, p / p.sum())
        return s, _draw(rng, self.opening[s])

    def sample_step(self, s: int, strategy: int, rng: np.random.Generator) -> tuple[bool, int | None, int | None]:
        """(agreed, next state, reply) after ``strategy`` at state ``s``: one draw from ``rng``; the persuadee
        walked away when it did not agree and the next state is None (v2 only)."""
        p_yes = float(self.success[strategy, s])
        row = self._flat[strategy, s]
        u = rng.random()
        if u < p_yes:
            return True, None, None
        cum = p_yes + np.cumsum(row)
        k = self._pick(cum, u)
        if k is None:
            return False, None, None
        while row[k] == 0.0:  # float rounding at the very end of the row
            k -= 1
        s2, o = divmod(k, N_OBS)
        return False, int(s2), int(o)


def _moves(persona: MindPersona, b: int, c: int, a: int) -> list[tuple[bool, int, np.ndarray, float]]:
    """(landed, next belief, next-concern distribution, probability) of strategy ``a``."""
    keep = np.eye(len(CONCERNS))[c]
    if a == NOTHING:
        return [(False, b, keep, 1.0)]
    if a == LIKING:
        if b == WARY:
            return [(False, TRUSTING, keep, persona.warmth), (False, WARY, keep, 1.0 - persona.warmth)]
        return [(False, TRUSTING, keep, 1.0)]
    if ANSWERS[a] == c:
        fresh = persona.concern_probs.copy()
        fresh[c] = 0.0
        fresh /= fresh.sum()
        return [(True, b, fresh, HIT[b]), (False, b, keep, 1.0 - HIT[b])]
    if b == WARY:
        return [(False, WARY, keep, 1.0)]
    miss = 1.0 - OFF_TARGET
    return [
        (True, TRUSTING, keep, OFF_TARGET),
        (False, WARY, keep, miss * persona.touchiness),
        (False, TRUSTING, keep, miss * (1.0 - persona.touchiness)),
    ]


def reply_allowed(persona: MindPersona, state: MindState, landed: bool, drawn: int, reply: int) -> bool:
    """Whether a v1 persuadee at ``state`` could give ``reply`` (tone x topic) when its dynamics drew ``drawn``:
    a warm tone exactly when the drawn one is warm (the line landed), and no concern but its own."""
    tone, topic = obs_parts(reply)
    return (tone == WARM) == (obs_parts(drawn)[0] == WARM) and topic in (0, 1 + state.concern)


def _normalised(v: np.ndarray, what: str) -> np.ndarray:
    total = float(v.sum())
    if total <= 0.0:
        raise InvalidPersona(f"the {what} has probability 0 under the model (an impossible observation)")
    return v / total


def _draw(rng: np.random.Generator, p: np.ndarray) -> int:
    k = int(np.searchsorted(np.cumsum(p), rng.random(), side="right"))
    k = min(k, p.size - 1)
    while p[k] == 0.0:
        k -= 1
    return k


_MODELS: dict[str, MindModel] = {}


def cached_model(store: dict, family: Family, build: type[MindModel]) -> MindModel:
    """``store``'s compiled model of ``family``, built by ``build(family)`` on first use."""
    key = repr((family.name, family.personas, family.weights))
    if key not in store:
        store[key] = build(family)
    return store[key]


def model_for(family: Family) -> MindModel:
    """The (cached) compiled model of ``family``."""
    return cached_model(_MODELS, family, MindModel)


def distribution(belief: np.ndarray, model: MindModel, target: str) -> np.ndarray:
    """A state distribution's marginal over one target (``desire``, ``belief``, ``intention``, ``persona``)."""
    return belief @ model.marginals[target]


__all__ = [
    "ANSWERS",
    "BELIEFS",
    "CONCERNS",
    "CONCERN_TEXT",
    "Family",
    "HEARD",
    "LIKING",
    "MIND_DESIRES",
    "MindModel",
    "MindPersona",
    "MindState",
    "NOTHING",
    "N_OBS",
    "N_STRATEGIES",
    "TONES",
    "TOPICS",
    "cached_model",
    "distribution",
    "model_for",
    "obs_index",
    "obs_parts",
    "reply_allowed",
]
