"""``tom-envs crossplay``: a population of agents plays every ordered pairing on two-seat envs
(docs/crossplay.md).

A family says which of its two-seat ids cross-play and who plays them through :class:`CrossplayTask`
declarations named in its :class:`tom_envs.family.Family` (``crossplay=("module:TASK", ...)``); this
module holds the shared part (agents, the pairing cell, the command) and names no family.

* **Agents.** An :class:`Agent` is a name, a kind (``scripted``, ``tabular``, ``learner``, ``llm``), an
  identity (what besides its name decides how it plays: a model's key, an LLM's run identity) and a
  builder ``build(seat) -> policy`` of the one Policy protocol (``policies/base.py``) for either seat.
* **Pairings.** Every ordered pair (row agent in the first seat, column agent in the second; self-play
  included) is a :class:`PairCell`, a :class:`benchmarks.runner.Cell`: its episodes go through
  :func:`benchmarks.runner.run_cell` (resumable records under ``--out/crossplay/``, ``--executor ray``).
  Where the seats differ (a persuader and a persuadee), each agent names its seat (:attr:`Agent.seat`) and
  every first-seat agent meets every second-seat agent, in the task's own cell (:attr:`CrossplayTask.cell`,
  for turn-taking AEC envs) whose records hold the match ``scores`` the ratings read.
* **An episode.** Both seats' policies are seeded from the run's policy stream
  (:func:`benchmarks.policy_seeds.policy_seed`, seat 0 and 1), never from the env seed. Each round every
  seat is asked for its prediction of the other seat's action (``predict``, where the policy makes
  predictions), then for its action, from its own observation and info only; after the step each
  seat observes its own result. The record keeps each round's ``[action_0, action_1, prediction_0,
  prediction_1]`` (a predicted distribution stored as its most likely action, ties to the lowest index,
  as :class:`wrappers.ToMRecorder` scores it) and the episode's returns and literal ToM per seat: the
  share of rounds whose prediction equals the other seat's action (None for a seat that predicts nothing).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from benchmarks.runner import Cell, EpisodeResult
from tom_envs.errors import TomEnvsError

#: The results folder under ``--out``.
FOLDER = "crossplay"
#: Bump when what a crossplay record means changes (it keys every cell).
CROSSPLAY_VERSION = 1
KINDS = ("scripted", "tabular", "learner", "llm")


class CrossplayError(TomEnvsError, ValueError):
    """Bad options or declarations for ``tom-envs crossplay`` (the message says what to change)."""


@dataclass(frozen=True)
class Agent:
    """One member of a crossplay population.

    Attributes:
        name: unique within the population (rows, heatmaps and ratings name it).
        kind: one of :data:`KINDS`.
        identity: what decides its play besides its name (JSON-able; part of every cell key).
        build: ``build(seat) -> policy`` for the seat's agent name; picklable (a module-level function
            or a ``functools.partial`` of one) so cells travel to Ray workers.
        seat: the one seat it plays (games whose seats differ: a persuader, a persuadee); None: either seat.
    """

    name: str
    kind: str
    identity: Mapping[str, Any]
    build: Callable[[str], Any] = field(compare=False, repr=False)
    seat: str | None = None

    def describe(self) -> dict[str, Any]:
        out = {"name": self.name, "kind": self.kind, "identity": dict(self.identity)}
        if self.seat is not None:  # only then: the matrix agents' cell keys stay as they were
            out["seat"] = self.seat
        return out


@dataclass(frozen=True)
class Population:
    """What a task's ``population`` builder is given: the episode length, where learners keep their
    models, the learners' budget and the LLM agent's backend (None: no LLM agent)."""

    horizon: int
    out: Path
    learner_steps: int
    learner_envs: int = 8
    llm: Any = None  # LLMAgentSpec or None
    log: Callable[..., Any] = print


@dataclass(frozen=True)
class LLMAgentSpec:
    """The LLM agent of a population: its backend, the LLM option group's settings, the strategy (the matrix
    LLM policy's) and how it decides (``decode``: ``"generate"`` or ``"score"``, :mod:`policies.llm.decode`)."""

    backend: Any
    settings: Mapping[str, Any]
    identity: Mapping[str, Any]
    strategy: str
    decode: str = "generate"

    def agent_identity(self, **extra: Any) -> dict[str, Any]:
        """The LLM agent's identity: the run's, ``extra``, and ``decode`` when it scores (a generating agent's
        identity, and so its records' keys, are as they were before scoring existed)."""
        scored = {"decode": self.decode} if self.decode != "generate" else {}
        return {**self.identity, **extra, **scored}

    def caller_settings(self) -> dict[str, Any]:
        """The re-ask bound and fallback every family's LLM agent takes from the LLM option group."""
        return {
            "max_resamples": self.settings.get("max_resamples", 10),
            "fallback": self.settings.get("fallback", "raise"),
        }


@dataclass(frozen=True)
class CrossplayTask:
    """How a family's two-seat ids cross-play.

    Attributes:
        env_ids: the registered two-seat ids (PettingZoo ``ParallelEnv``) it plays.
        population: ``population(env_id, Population) -> [Agent, ...]`` (at least two agents).
        seats: the two agent names, row seat first.
        outcome: the ``tom_outcome()`` key of a seat's return, with ``{seat}`` for the agent name.
        horizon: the default episode length (``--horizon``).
        notes: what a reader of the rows should know.
        cell: the pairing's cell class (default :class:`PairCell`, a PettingZoo ``ParallelEnv``); a family
            whose two seats take turns (AEC) gives a subclass that plays its env, built as
            ``cell(env_id, horizon, row, col, seats, outcome)``.
        strategy: whether its LLM agent takes ``--strategy`` (the matrix LLM policies do).
        horizons: the ``--horizon`` values its ids take, ``(least, most)`` (None: no bound), and what a
            horizon counts (a bad one is a :class:`CrossplayError` saying so).
    """

    env_ids: tuple[str, ...]
    population: Callable[[str, Population], list[Agent]]
    seats: tuple[str, str] = ("player_0", "player_1")
    outcome: str = "return_{seat}"
    horizon: int = 100
    notes: tuple[str, ...] = ()
    cell: Any = None
    strategy: bool = True
    horizons: tuple[int, int | None, str] = (1, None, "rounds")


def tasks() -> dict[str, CrossplayTask]:
    """Every id some family's :class:`CrossplayTask` plays -> that task (``Family.crossplay``, in order)."""
    from benchmarks.declarations import by_env_id, declared

    found = declared("crossplay", CrossplayTask, "benchmarks.crossplay.CrossplayTask")
    return {env_id: task for env_id, (_, task) in by_env_id(found).items()}


@functools.lru_cache(maxsize=16)
def load_ppo(path: str) -> Any:
    """A saved stable-baselines3 PPO model on the CPU (a learner agent's; cached, so the pairings share it)."""
    from stable_baselines3 import PPO

    return PPO.load(path, device="cpu")


def seat_learner(
    env_id: str, pop: Population, task: Any, build: Callable[[str, str], Any], seat: str, seed: int = 0
) -> Agent:
    """The PPO learner of a seated population (agent ``ppo``, kind ``learner``): one model trained (or loaded)
    now by ``tom-envs rl``'s code (:mod:`benchmarks.rl_train`) on the ``train`` split of ``env_id`` as the RL
    task ``task`` plays it (with its PPO settings), for ``--learner-steps`` steps, kept under
    ``--out/crossplay/learners``; ``build(path, seat)`` makes its policy from the saved model's path."""
    from benchmarks.rl_train import Training, train

    folder = Path(pop.out) / "learners"
    training = Training(env_id, "ppo", pop.learner_steps, seed, pop.learner_envs, {}, dict(task.hyper.get("ppo", {})))
    train(task, training, folder, pop.log)
    identity = {"algo": "ppo", "steps": pop.learner_steps, "split": "train", "model": training.key}
    return Agent("ppo", "learner", identity, functools.partial(build, str(training.path(folder))), seat)


def joining(pop: Population, learner: Callable[[], Agent], llm: Callable[[Any], Agent]) -> list[Agent]:
    """The agents that join a population only when asked: the learner, built by ``learner()`` (with
    ``--learner-steps`` above 0), and the LLM agent, built by ``llm(spec)`` from the run's :class:`LLMAgentSpec`
    (with ``--model``)."""
    out = [learner()] if pop.learner_steps else []
    if pop.llm is not None:
        out.append(llm(pop.llm))
    return out


# ---------------------------------------------------------------------- one pairing
def as_action(prediction: Any) -> int | None:
    """A prediction as the action it names: an index as it is, a distribution as its most likely
    action (ties to the lowest index), None as None."""
    if prediction is None:
        return None
    if np.ndim(prediction) == 0:
        return int(prediction)
    return int(np.argmax(np.asarray(prediction, dtype=float)))


def tom_of(steps: Sequence[Sequence[Any]], seat: int) -> float | None:
    """Seat ``seat``'s literal ToM over an episode's steps ``[a0, a1, p0, p1]``: the % of rounds whose
    prediction ``p<seat>`` equals the other seat's action; None when it predicted nothing."""
    scored = [(s[2 + seat], s[1 - seat]) for s in steps if s[2 + seat] is not None]
    if not scored:
        return None
    return 100.0 * sum(p == a for p, a in scored) / len(scored)


@dataclass(frozen=True)
class PairCell(Cell):
    """``row`` in the first seat against ``col`` in the second on ``env_id`` for ``horizon`` rounds."""

    env_id: str
    horizon: int
    row: Agent
    col: Agent
    seats: tuple[str, str] = ("player_0", "player_1")
    outcome: str = "return_{seat}"
    family: ClassVar[str] = FOLDER

    def config(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "horizon": self.horizon,
            "seats": list(self.seats),
            "outcome": self.outcome,
            "row": self.row.describe(),
            "col": self.col.describe(),
            "version": CROSSPLAY_VERSION,
        }

    def slug(self) -> str:
        return f"{self.env_id.replace('/', '-')}_{self.row.name}_vs_{self.col.name}"

    def make_env(self) -> Any:
        import tom_envs

        return tom_envs.make(self.env_id, horizon=self.horizon)

    def make_policy(self) -> tuple[Any, Any]:
        return self.row.build(self.seats[0]), self.col.build(self.seats[1])

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        from benchmarks.policy_seeds import policy_seed

        pols = dict(zip(self.seats, policy))
        obs, infos = env.reset(seed=seed)
        for i, seat in enumerate(self.seats):
            pols[seat].reset(policy_seed(seed, i))
        steps: list[list[Any]] = []
        while env.agents:
            preds = [
                as_action(pols[s].predict(obs[s], infos[s])) if getattr(pols[s], "makes_predictions", False) else None
                for s in self.seats
            ]
            acts = [int(pols[s].act(obs[s], infos[s])) for s in self.seats]
            obs, rewards, terms, truncs, infos = env.step(dict(zip(self.seats, acts)))
            for s in self.seats:
                if hasattr(pols[s], "observe"):
                    pols[s].observe(obs[s], rewards[s], terms[s], truncs[s], infos[s])
            truth = env.tom_truth()
            steps.append([int(truth[self.seats[0]]), int(truth[self.seats[1]]), *preds])
        outcome = env.tom_outcome()
        summary = {
            "returns": [float(outcome[self.outcome.format(seat=s)]) for s in self.seats],
            "tom": [tom_of(steps, 0), tom_of(steps, 1)],
            "predictions": [sum(s[2 + i] is not None for s in steps) for i in (0, 1)],
            "rounds": len(steps),
        }
        return EpisodeResult(seed, summary, {}, steps=steps)

    def play_batch(self, envs: Sequence[Any], policy: Any, seeds: Sequence[int]) -> list[EpisodeResult]:
        return [self.play(envs[0], policy, s) for s in seeds]

    def check(self, record: dict) -> None:
        ep = record["episode"]
        if len(ep["returns"]) != 2 or len(ep["tom"]) != 2 or not isinstance(record["steps"], list):
            raise ValueError("a crossplay record holds two returns, two ToM figures and the steps")


def cells(env_id: str, task: CrossplayTask, agents: Sequence[Agent], horizon: int) -> list[PairCell]:
    """Every ordered pairing of ``agents`` (self-play included), row-major; where the agents name their
    seat (:attr:`Agent.seat`), every first-seat agent against every second-seat agent.

    Raises:
        CrossplayError: two agents of one name, or a population where some agents name a seat and others
            do not, or name a seat the task lacks.
    """
    names = [a.name for a in agents]
    if len(set(names)) != len(names):
        raise CrossplayError(f"agent names must be unique in a population, got {names}")
    make = task.cell or PairCell
    seated = [a.seat is not None for a in agents]
    if not any(seated):
        return [make(env_id, horizon, row, col, task.seats, task.outcome) for row in agents for col in agents]
    stray = [a.name for a in agents if a.seat not in task.seats]
    if stray:
        raise CrossplayError(
            f"{env_id}: agents {stray} name no seat of {list(task.seats)}; in a population of "
            "seated agents every agent names the seat it plays"
        )
    rows = [a for a in agents if a.seat == task.seats[0]]
    cols = [a for a in agents if a.seat == task.seats[1]]
    return [make(env_id, horizon, row, col, task.seats, task.outcome) for row in rows for col in cols]


# ---------------------------------------------------------------------- the command
@dataclass(frozen=True)
class CrossplayRun:
    """One ``tom-envs crossplay`` run: the ids, episodes per pairing, the first seed, the horizon, the
    learners' training budget and the LLM agent's strategy."""

    env_ids: tuple[str, ...]
    episodes: int = 20
    seed: int = 0
    horizon: int | None = None
    learner_steps: int = 20_000
    learner_envs: int = 8

    @property
    def seeds(self) -> list[int]:
        return list(range(self.seed, self.seed + self.episodes))


def run(
    config: CrossplayRun, out: Path, llm: LLMAgentSpec | None = None, log: Callable[..., Any] = print
) -> dict[str, Any]:
    """Play every pairing of every id (only the episodes the results files lack) and summarise.

    Returns ``{"pairings": rows, "ratings": rows, "agreement": rows}`` (:mod:`benchmarks.crossplay_stats`).

    Raises:
        CrossplayError: an id no task plays, or a population of fewer than two agents.
    """
    from benchmarks.crossplay_stats import summarise
    from benchmarks.runner import run_cell

    known = tasks()
    unknown = [e for e in config.env_ids if e not in known]
    if unknown:
        raise CrossplayError(f"no crossplay task plays {', '.join(unknown)}; choose from {', '.join(known)}")
    plays = []  # every population first: a bad option is an error before any episode is played
    for env_id in config.env_ids:
        task = known[env_id]
        horizon = config.horizon or task.horizon
        least, most, unit = task.horizons
        if horizon < least or (most is not None and horizon > most):
            span = f"{least} to {most}" if most is not None else f"at least {least}"
            raise CrossplayError(
                f"{env_id} plays {span} {unit} per episode, not --horizon {horizon}; give a horizon "
                f"in that range, or --env without {env_id}"
            )
        pop = Population(horizon, Path(out) / FOLDER, config.learner_steps, config.learner_envs, llm, log)
        agents = task.population(env_id, pop)
        if len(agents) < 2:
            raise CrossplayError(f"{env_id}: a population needs at least two agents, got {len(agents)}")
        plays.append((env_id, cells(env_id, task, agents, horizon)))
    records: dict[str, list[dict]] = {}
    for env_id, pairings in plays:
        records[env_id] = [rec for cell in pairings for rec in run_cell(cell, config.seeds, Path(out))]
    return summarise(records)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options: the shared run options, the LLM group and the executor group."""
    from benchmarks.cli import add_executor_options, add_run_options, refuse_options
    from benchmarks.cli_llm import add_llm_options
    from benchmarks.cli_types import comma_list, non_negative_int, positive_int

    parser.add_argument(
        "--env",
        type=comma_list(name="id"),
        default=None,
        help="comma-separated two-seat ids (default: every id a family's crossplay task plays)",
    )
    add_run_options(parser, episodes=20, episodes_help="episodes per ordered pairing (episode i uses seed + i)")
    parser.add_argument(
        "--horizon",
        type=positive_int,
        default=None,
        help="rounds per episode, for every id played (default: each task's own; docs/crossplay.md "
        "lists each task's range)",
    )
    parser.add_argument(
        "--learner-steps",
        type=non_negative_int,
        default=20_000,
        help="training steps of each seat's learner (trained once, kept under --out); 0: no learner",
    )
    parser.add_argument("--learner-envs", type=positive_int, default=8, help="parallel training envs of the learners")
    from benchmarks.cli import Applies, declare_applies
    from benchmarks.cli_llm import LLM_OPTIONS

    llm_options = [o for o in LLM_OPTIONS if o != "lockstep"]
    group = add_llm_options(
        parser, title="the LLM agent (joins the population when --model is given)", only=llm_options
    )
    group.add_argument(
        "--strategy",
        default=None,
        help="the prompting strategy of an LLM agent that takes one (docs/crossplay.md; one that predicts, e.g. "
        "social_qa, gives it a ToM figure; default: social_qa, or lm with --decode score)",
    )
    group.add_argument(
        "--decode",
        default="generate",
        help="how the LLM agents decide: generate (a reply in the prompt's format, parsed) or score (every valid "
        "label scored by log-probability after the same prompt, the most likely taken: no generation, always a "
        "valid choice; an agent that takes --strategy then needs a scoring one, lm)",
    )
    add_executor_options(parser)
    refuse_options(
        parser,
        {
            "--plot": "crossplay's heatmaps and ratings are drawn by `tom-envs report RESULTS_DIR` (its crossplay section)",
            "--policy": "crossplay plays the whole population of each id (docs/crossplay.md lists it)",
            "--lockstep": "crossplay plays each pairing's episodes one by one (two policies per episode, one per seat)",
        },
    )
    with_llm = Applies(
        "without --model (the LLM agent joins the population only with --model)",
        when=lambda args: args.model is not None,
    )
    strategy = Applies(
        "without --model, or where no chosen id's LLM agent takes a strategy (docs/crossplay.md)",
        when=lambda args: args.model is not None and _takes_strategy(args.env),
    )
    declare_applies(
        parser,
        {
            **{o: with_llm for o in llm_options if o != "model"},
            "decode": with_llm,
            "strategy": strategy,
            "learner_envs": Applies(
                "with --learner-steps 0 (no learner is trained)", when=lambda args: args.learner_steps > 0
            ),
        },
    )


def _takes_strategy(env: Any) -> bool:
    """Whether some chosen id's task (every task without ``--env``) builds its LLM agent with ``--strategy``."""
    from benchmarks.cli_types import split_list

    known = tasks()
    chosen = split_list(env) if env else list(known)
    return any(known[e].strategy for e in chosen if e in known)


def llm_choice(strategy: str | None, decode: str) -> tuple[str, str]:
    """The LLM agent's strategy (None: ``social_qa``, or ``lm`` when it scores) and its checked ``decode``.

    Raises:
        CrossplayError: a ``decode`` that is not one of :data:`policies.llm.decode.DECODES`.
    """
    from policies.llm.decode import DECODES

    if decode not in DECODES:
        raise CrossplayError(f"--decode takes {' or '.join(DECODES)}, not {decode!r}")
    if strategy is None:
        strategy = "lm" if decode == "score" else "social_qa"
    return strategy, decode


def run_command(args: argparse.Namespace) -> int:
    """``tom-envs crossplay``: play, then print the pairings, ratings and rank agreement."""
    from benchmarks.cli_backends import backend_from_args
    from benchmarks.cli_llm import llm_settings
    from benchmarks.cli_training import run_config
    from benchmarks.crossplay_stats import render
    from benchmarks.distributed import executor_from_args
    from benchmarks.cli_types import split_list

    env_ids = tuple(split_list(args.env)) if args.env else tuple(tasks())
    config = run_config(CrossplayRun, args, env_ids=env_ids)
    log = lambda *a, **k: print(*a, file=sys.stderr, **k)
    with executor_from_args(args):
        llm = None
        if args.model is not None:
            strategy, decode = llm_choice(args.strategy, args.decode)
            settings = llm_settings(args)
            llm = LLMAgentSpec(backend_from_args(args), settings, settings.identity(), strategy, decode)
        result = run(config, Path(args.out), llm, log)
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
    return 0
