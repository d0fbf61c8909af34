"""The ToM and text contract that every tom-envs environment keeps (docs/architecture.md, "Contracts").

Every env, single-agent or PettingZoo AEC, states on its *unwrapped* instance what an agent may predict
about the others (its literal-ToM targets) and what counts as acting well on them (its functional
outcome), the same way in every family, so that one recorder (:mod:`wrappers.tom_recorder`) scores them all:

* ``tom_spec`` — a :class:`ToMSpec`: the targets (name → gymnasium space of one prediction), which agent
  predicts (AEC envs; ``None`` for single-agent envs), whether the chosen action *is* the prediction (QA
  envs: the answer picked is the belief predicted), the names of the functional outcome values, and
  when its truths may come back (``reveal``: with each step, or only when the episode ends).
* ``tom_truth()`` — after a step, the ground truth of the targets that step resolved, as
  ``{target: value}`` (only the targets resolved; empty when none). The recorder calls it on the
  unwrapped env. It is *not* part of what ``step`` returns: hidden states that persist (a persuadee's
  desire, a party's stance) would otherwise leak into the next decision.
* ``tom_outcome()`` — the functional outcome so far, ``{name: value}`` (regret, success, consensus
  change, ...); at the end of an episode, the episode's outcome.

Scoring: :class:`wrappers.ToMRecorder` (Gymnasium) and :class:`wrappers.AECToMRecorder` (the
``predictor`` seat of an AEC env) take predictions through ``record_prediction(prediction)`` (a
bare value for a single target, ``{target: value}`` otherwise; a probability vector for a
``Discrete`` target scores its argmax) and score them with one :class:`wrappers.ToMScorer`. **The
scorer is out of band**: its per-step records go to the recorder's ``records`` / ``last_record``,
which the runner reads from the recorder, never into what a seat observes; a Gymnasium episode's
last step returns ``info["tom"] = {"steps": [...], "episode": summary}`` (ToM % per target and per
``group_by`` value, the outcome; matrix games keep seed 004's ΔToM and ΔFunctional keys), when
every fact is over and public.

**Information rule.** Nothing a policy receives -- from the env or from any wrapper, recorder or
runner in between -- may determine the answer to a question not yet answered or a hidden state not
yet revealed: not the observation, not the info, not the reward, not the order, count, size or
position of what is returned. Ground truth reaches the scorer through ``tom_truth``/``tom_outcome``
(or a step's info *after* the fact, when the fact is over and public: the partner's action just
played; where facts correlate within an episode -- the answers of one dialogue's questions -- only
with the episode's last step, ``ToMSpec.reveal``). A persistent hidden state (a persuadee's mind, a
party's stance) comes back only when the episode ends. An explicit, documented boolean constructor
flag may expose more for oracle baselines (e.g. ``expose_labels=True``; a non-bool is
:class:`~tom_envs.errors.InvalidFlag`). :func:`tom_envs.checks.check_information_rule` plays an env
the way cheating policies would, bare or wrapped, and reports what it finds.

**Text for language models.** One convention across families: the text an LLM reads for the current
decision is the observation's ``"text"`` entry for envs with dict observations (the QA envs); envs whose
observation is numeric render it on demand and a wrapper makes it the observation:
:class:`wrappers.TextObservation` for Gymnasium envs (matrix games in one of seed 004's label sets, any
other env through its ``text()`` method, e.g. live persuasion) and :class:`wrappers.AECTextObservation`
for PettingZoo AEC envs (each seat observes the env's ``text(agent)``: negotiation, two-seat
persuasion). ``info`` carries no text of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

from gymnasium import spaces

from tom_envs.errors import TomEnvsError


class ToMContractError(TomEnvsError, TypeError):
    """An env does not keep the ToM contract (no ``tom_spec``, or a malformed one)."""


@dataclass(frozen=True)
class ToMSpec:
    """What an env's agents may predict about the others, and how acting on it is judged.

    Args:
        targets: literal-ToM target name → the gymnasium space of one prediction of it.
        outcome: the names of the functional outcome values reported by ``tom_outcome()``.
        predictor: the agent whose predictions are scored (AEC envs); None for single-agent envs.
        action_is_prediction: True where the action chosen is itself the prediction of the single
            target (QA envs: the answer index).
        group_by: a key of a step's ``info`` naming the kind of question that step resolved (QA
            envs: ``"qtype"``); the recorder breaks accuracy down by its value. None: no breakdown.
        reveal: when the env's *own* info and reward may return the truths it resolves:
            ``"step"`` (with the step that resolved them, once the fact is public; default) or
            ``"episode"`` (only with the episode's last step: QA envs whose answers correlate
            within a dialogue). The recorders return nothing before the last step either way.
        scorer: ``"module:Class"`` of the scorer that adds the family's own metrics (a subclass of
            ``wrappers.ToMScorer`` taking ``(env, **options)``; the matrix games name
            ``wrappers.matrix.scorer:MatrixToMScorer`` for seed 004's ΔToM and ΔFunctional), or None
            for the generic scorer. A string, so that an env names it without importing wrappers.
    """

    targets: Mapping[str, spaces.Space] = field(default_factory=dict)
    outcome: tuple[str, ...] = ()
    predictor: str | None = None
    action_is_prediction: bool = False
    group_by: str | None = None
    reveal: str = "step"
    scorer: str | None = None

    def __post_init__(self) -> None:
        if self.scorer is not None and (not isinstance(self.scorer, str) or ":" not in self.scorer):
            raise ToMContractError(
                f"ToMSpec scorer is 'module:Class' (a wrappers.ToMScorer subclass), got {self.scorer!r}"
            )
        if self.reveal not in ("step", "episode"):
            raise ToMContractError(f"ToMSpec reveal is 'step' or 'episode', got {self.reveal!r}")
        for name, space in self.targets.items():
            if not isinstance(name, str) or not isinstance(space, spaces.Space):
                raise ToMContractError(f"ToMSpec targets map names to gymnasium spaces, got {name!r}: {space!r}")
        if self.action_is_prediction and len(self.targets) != 1:
            raise ToMContractError("action_is_prediction needs exactly one target (the one the action answers)")

    @property
    def target(self) -> str | None:
        """The only target, for single-target envs; None otherwise."""
        return next(iter(self.targets)) if len(self.targets) == 1 else None


@runtime_checkable
class ToMEnv(Protocol):
    """The three members an unwrapped env exposes for literal and functional ToM scoring."""

    tom_spec: ToMSpec

    def tom_truth(self) -> dict[str, Any]: ...

    def tom_outcome(self) -> dict[str, Any]: ...


def tom_spec_of(env: Any) -> ToMSpec:
    """The :class:`ToMSpec` of an env (wrapped or not); :class:`ToMContractError` if it keeps none."""
    base = getattr(env, "unwrapped", env)
    spec = getattr(base, "tom_spec", None)
    if not isinstance(spec, ToMSpec):
        raise ToMContractError(
            f"{type(base).__name__} does not state its literal-ToM targets: give it a `tom_spec` "
            "(tom_envs.tom.ToMSpec) and `tom_truth()` / `tom_outcome()` methods (docs/architecture.md)"
        )
    return spec
