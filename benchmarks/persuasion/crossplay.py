"""Two-seat persuasion's crossplay population (``tom-envs crossplay``, :mod:`benchmarks.crossplay`; docs/crossplay.md).

On ``tom/Persuasion-TwoSeat-v1`` (horizon 4 persuader lines) the two seats differ, so every agent plays one
seat (:attr:`benchmarks.crossplay.Agent.seat`) and every persuader meets every persuadee:

* **persuaders** (``persuader_0``): the scripted persuaders of :data:`policies.persuasion.scripted.MIND_PERSUADERS`
  named in :data:`SCRIPTED` (random, echo, echo-memory, open-loop, tracking, bayes; they predict the
  persuadee's desire, belief and intention); **ppo**, the persuader trained by ``tom-envs rl``'s code
  (:mod:`benchmarks.rl_train`, the live task :data:`benchmarks.persuasion.rl.LIVE` on this id's ``train``
  split, ``--learner-steps``; kept under ``--out/crossplay/learners``), acting greedily, predicting nothing;
  and, with ``--model``, **llm_persuader** (:class:`policies.persuasion.llm.LLMPersuader`, which states its
  guess of the persuadee's mind before each line; with ``--decode score`` it chooses that guess and the
  principle of its line by log-probability);
* **persuadees** (``persuadee_0``): one simulated person per persona (``persona_<name>``: the persona's
  mind replies, :class:`policies.persuasion.scripted.SimulatedMindPersuadee`, which predicts the persuader's
  next principle); and, with ``--model``, **llm_persuadee** (:class:`policies.persuasion.llm.LLMPersuadee`:
  it reads its persona and mind in its prompt, drawn by the env, replies in words and predicts the next
  principle).

A persona agent fixes the episode's persona (the env's ``options["persona"]``) and draws its scenario family
among the families that have that persona, from a generator seeded by the episode's seed (public: the
persuader sees the family, as in every episode). An episode's record (:class:`PersuasionPairCell`): the returns
(persuader: 1 if persuaded; persuadee: its faithful replies), literal ToM both ways (the persuader's mean
accuracy over desire, belief and intention; the persuadee's accuracy on the next principle; None for a seat
that predicts nothing), the match ``scores`` (persuaded: 1/0, else 0/1) that the ratings read, and the
env's outcome (exact references, regret, fidelity).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from benchmarks.crossplay import Agent, CrossplayError, CrossplayTask, PairCell, Population, joining, seat_learner
from benchmarks.runner import EpisodeResult

ENV_IDS = ("tom/Persuasion-TwoSeat-v1",)
PERSUADER, PERSUADEE = "persuader_0", "persuadee_0"
SEATS = (PERSUADER, PERSUADEE)
#: The scripted persuaders (names of ``MIND_PERSUADERS``; the oracle sees the hidden state and is left out).
SCRIPTED = ("random", "echo", "echo-memory", "open-loop", "tracking", "bayes")
#: The learner's training seed.
LEARNER_SEED = 0
#: The persuader's targets whose accuracies make its ToM figure.
TARGETS = ("desire", "belief", "intention")
#: Mixed into the episode's seed to draw a persona agent's scenario family.
FAMILY_STREAM = 0xC9055


def personas() -> tuple[str, ...]:
    """Every persona of the v1 scenario families, in file order."""
    from tom_envs.persuasion.scenarios import FAMILIES

    return tuple(dict.fromkeys(p.name for f in FAMILIES for p in f.personas))


def persona_options(persona: str, seed: int) -> dict[str, str]:
    """The reset options of an episode against ``persona``: the persona and a family that has it (seeded)."""
    from tom_envs.persuasion.scenarios import FAMILIES

    names = [f.name for f in FAMILIES if persona in {p.name for p in f.personas}]
    if not names:
        raise CrossplayError(f"no scenario family has persona {persona!r}; personas: {', '.join(personas())}")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), FAMILY_STREAM]))
    return {"persona": persona, "family": names[int(rng.integers(len(names)))]}


class PersuasionPairCell(PairCell):
    """A persuader (row) against a persuadee (column) on the two-seat AEC env, played by
    :func:`benchmarks.persuasion.live.play_two_seat` (the persuader scored by ``wrappers.AECToMRecorder``,
    the persuadee by a ``wrappers.ToMScorer`` on the env's seat view)."""

    def make_env(self) -> Any:
        import tom_envs

        return tom_envs.make_aec(self.env_id, horizon=self.horizon)

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        from benchmarks.persuasion.live import play_two_seat

        persuader, persuadee = policy
        persona = self.col.identity.get("persona")
        options = persona_options(persona, seed) if persona else None
        before = {seat: dict(p.stats) for seat, p in zip(SEATS, policy) if isinstance(getattr(p, "stats", None), dict)}
        out = play_two_seat(env, persuader, persuadee, seed, options=options)
        # an LLM seat's counters over this episode (calls, parse failures, fallbacks): its caller counts since built
        stats = {
            seat: {k: v - before[seat].get(k, 0) for k, v in p.stats.items()}
            for seat, p in zip(SEATS, policy)
            if seat in before
        }
        accs = [out[f"{t}_accuracy"] for t in TARGETS if out.get(f"{t}_accuracy") is not None]
        success = bool(out["success"])
        base = env.unwrapped
        summary = {
            "returns": [float(out["persuader_return"]), float(out["persuadee_return"])],
            "tom": [float(np.mean(accs)) if accs else None, out["persuadee_strategy_accuracy"]],
            "scores": [1.0, 0.0] if success else [0.0, 1.0],
            "rounds": int(out["rounds"]),
            "family": base.family.name,
            "persona": base.family.personas[base.model.state(base.state_index).persona].name,
            "outcome": {
                k: out[k]
                for k in ("success", "regret", "bayes_success", "oracle_success", "open_loop_success", "fidelity")
            },
            "tom_by_target": {t: out.get(f"{t}_accuracy") for t in TARGETS},
        }
        return EpisodeResult(seed, summary, {}, steps=[], policy_stats=stats or None)

    def check(self, record: dict) -> None:
        ep = record["episode"]
        if len(ep["returns"]) != 2 or len(ep["tom"]) != 2 or len(ep["scores"]) != 2:
            raise ValueError("a seated crossplay record holds two returns, two ToM figures and two match scores")


# ---------------------------------------------------------------------- builders (module level: picklable)
def _scripted(name: str, seat: str) -> Any:
    from policies.persuasion.scripted import MIND_PERSUADERS

    return MIND_PERSUADERS[name]()


def _persona(seat: str) -> Any:
    from policies.persuasion.scripted import SimulatedMindPersuadee

    return SimulatedMindPersuadee()


class VectorPersuader:
    """The PPO persuader on the raw seat observation: it turns it into the vector it was trained on (the
    live task's ``MultiDiscrete`` form of the same values, :class:`benchmarks.persuasion.rl.AsMultiDiscrete`)."""

    makes_predictions = False

    def __init__(self, inner: Any, space: Any, observation: dict) -> None:
        from wrappers.vectorize import Vectorizer

        self.inner, self.vector = inner, Vectorizer(space, **observation)

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def predict(self, observation: Any, info: dict) -> None:
        return None

    def act(self, observation: Any, info: dict) -> int:
        return int(self.inner.act(self.vector(np.asarray(observation, dtype=np.int64)), info))


def _learner(path: str, seat: str) -> Any:
    from benchmarks.crossplay import load_ppo
    from benchmarks.persuasion.rl import LIVE, TWO_SEAT_V1, make_env
    from policies.sb3 import SB3Policy

    env = make_env(TWO_SEAT_V1, "train")
    space = env.observation_space
    env.close()
    return VectorPersuader(SB3Policy(load_ppo(path), name="ppo"), space, dict(LIVE.observation))


def _llm(spec: Any, seat: str) -> Any:
    from policies.persuasion.llm import LLMPersuadee, LLMPersuader

    return (LLMPersuader if seat == PERSUADER else LLMPersuadee)(
        spec.backend, decode=spec.decode, **spec.caller_settings()
    )


# ---------------------------------------------------------------------- the population
def learner(env_id: str, pop: Population) -> Agent:
    """The PPO persuader, trained (or loaded) now on the live task's ``train`` split of ``env_id``.

    Raises:
        CrossplayError: a horizon longer than the one it trains at (its observation counts the lines left).
    """
    from benchmarks.persuasion.rl import HORIZON, LIVE

    if pop.horizon > HORIZON:
        raise CrossplayError(
            f"the PPO persuader trains at horizon {HORIZON} (the live RL task's); give --horizon "
            f"{HORIZON} or less, or --learner-steps 0 to leave it out"
        )
    return seat_learner(env_id, pop, LIVE, _learner, PERSUADER, LEARNER_SEED)


def _llm_agent(name: str, seat: str, spec: Any) -> Agent:
    return Agent(name, "llm", spec.agent_identity(), functools.partial(_llm, spec), seat)


def population(env_id: str, pop: Population) -> list[Agent]:
    """The persuaders (:data:`SCRIPTED`, the PPO learner, the LLM) and the persuadees (one per persona, the LLM)."""
    agents = [
        Agent(name, "scripted", {"persuader": name}, functools.partial(_scripted, name), PERSUADER) for name in SCRIPTED
    ]
    agents += joining(
        pop, functools.partial(learner, env_id, pop), functools.partial(_llm_agent, "llm_persuader", PERSUADER)
    )
    agents += [Agent(f"persona_{name}", "scripted", {"persona": name}, _persona, PERSUADEE) for name in personas()]
    if pop.llm is not None:
        agents.append(_llm_agent("llm_persuadee", PERSUADEE, pop.llm))
    return agents


TASK = CrossplayTask(
    env_ids=ENV_IDS,
    population=population,
    seats=SEATS,
    outcome="success",
    horizon=4,
    cell=PersuasionPairCell,
    strategy=False,
    horizons=(1, None, "persuader lines"),
    notes=(
        "persuaders in the first seat, persuadees in the second; a match is won by the persuader when the "
        "persuadee agrees, else by the persuadee",
    ),
)
