"""RL settings of live persuasion (``tom-envs rl --env tom/Persuasion-v2``): :data:`LIVE`.

The persuader is trained on some personas and scenario families and tested on held-out ones
(issue 26). Splits (every id; the persona and family names of :mod:`tom_envs.persuasion.scenarios`):

* ``train``: personas procrastinator, conformist, skeptic, busy in families health, charity,
  shopping, work (each family's prior renormalised over its training personas);
* ``test`` (held-out personas): cautious and thrifty -- never met in training -- in the same four
  families (health and work: cautious; charity and shopping: thrifty);
* ``test-family`` (held-out scenario family): leisure, which training never draws, with its
  training personas (procrastinator, conformist).

Every family stays in the env's family list in the same order (the family entry of the
observation keeps its meaning); a split draws its families at reset (``options["family"]``, from a
generator seeded by the reset seed) and keeps its personas through
:func:`tom_envs.persuasion.mind_v2.restrict_personas` (``personas=`` on ``tom/Persuasion-v2``,
``families=`` on the others), so each episode's exact references (``tom_outcome()``: oracle,
Bayes-optimal fair, best open-loop) are those of the split's own prior. The two-seat ids train the
persuader seat; the persuadee seat is played by
:class:`policies.persuasion.scripted.SimulatedMindPersuadee` (its replies are the mind's own) through
:class:`wrappers.single_seat.SingleSeat`. docs/persuasion_live.md ("RL") has the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from benchmarks.rl import RLTask, Row
from tom_envs.errors import TomEnvsError

HORIZON = 4
V2, V1 = "tom/Persuasion-v2", "tom/Persuasion-v1"
TWO_SEAT_V2, TWO_SEAT_V1 = "tom/Persuasion-TwoSeat-v2", "tom/Persuasion-TwoSeat-v1"
PERSUADER, PERSUADEE = "persuader_0", "persuadee_0"

TRAIN_PERSONAS = ("procrastinator", "conformist", "skeptic", "busy")
TEST_PERSONAS = ("cautious", "thrifty")
TRAIN_FAMILIES = ("health", "charity", "shopping", "work")
TEST_FAMILIES = ("leisure",)
#: split -> (personas kept, families drawn)
SPLITS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "train": (TRAIN_PERSONAS, TRAIN_FAMILIES),
    "test": (TEST_PERSONAS, TRAIN_FAMILIES),
    "test-family": (TRAIN_PERSONAS, TEST_FAMILIES),
}
#: The scripted persuaders played on the same split and seeds (``policies.persuasion.scripted``; the oracle
#: needs ``expose_state=True``: its exact value is the ``exact oracle`` row).
REFERENCES = ("random", "echo", "echo-memory", "open-loop", "tracking", "bayes")
#: The env's exact references (``tom_outcome()`` keys) -> their rows' policy names.
EXACT = {
    "open_loop_success": "exact best open-loop",
    "bayes_success": "exact bayes (lower bound)",
    "oracle_success": "exact oracle",
}


class UnknownSplit(TomEnvsError, ValueError):
    """A split name the live persuasion task does not have."""


class SplitFamilies(gym.Wrapper):
    """Draws each episode's scenario family from ``names`` (``options["family"]``), with a generator
    seeded by the reset seed (a reset without a seed goes on with it): the split's families only, while
    the env keeps every family (so the observation's family index means the same in every split)."""

    def __init__(self, env: Any, names: Sequence[str]) -> None:
        super().__init__(env)
        self.names = tuple(names)
        self._rng = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xFA111]))
        options = dict(options or {})
        if "family" not in options:
            options["family"] = self.names[int(self._rng.integers(len(self.names)))]
        return self.env.reset(seed=seed, options=options)


class EpisodeReturn(gym.Wrapper):
    """Adds stable-baselines3's ``"r"`` (return) and ``"l"`` (length) to the env's own end-of-episode
    ``info["episode"]`` (its summary, kept whole): SB3 reads those two keys from any ``info["episode"]``
    and fails without them. Public values only (the rewards and steps the agent already had)."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        self._return, self._length = 0.0, 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._return += float(reward)
        self._length += 1
        if (terminated or truncated) and isinstance(info.get("episode"), dict):
            info = {**info, "episode": {**info["episode"], "r": self._return, "l": self._length}}
        return obs, reward, terminated, truncated, info


class AsMultiDiscrete(gym.ObservationWrapper):
    """The two-seat persuader's integer ``Box(0, high)`` observation declared as the single-seat env's
    ``MultiDiscrete(high + 1)`` (same values), so both encode alike (one-hot per entry)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.observation_space = gym.spaces.MultiDiscrete(np.asarray(env.observation_space.high, dtype=np.int64) + 1)

    def observation(self, observation: Any) -> np.ndarray:
        return np.asarray(observation, dtype=np.int64)


def split_of(split: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(personas, families) of ``split``.

    Raises:
        UnknownSplit: a name that is not one of :data:`SPLITS`.
    """
    if split not in SPLITS:
        raise UnknownSplit(f"unknown split {split!r}; the live persuasion task's splits: {', '.join(SPLITS)}")
    return SPLITS[split]


def make_env(env_id: str, split: str, **env_kwargs: Any) -> Any:
    """The persuader's Gymnasium env of ``env_id`` on ``split`` (horizon :data:`HORIZON`); ``env_kwargs``:
    the env's own keyword arguments from ``--env-kwargs`` (e.g. ``{"expose_state": true}``, the oracle setting)."""
    import tom_envs
    from tom_envs.persuasion.mind_v2 import restrict_personas
    from tom_envs.persuasion.scenarios import FAMILIES, FAMILIES_V2

    personas, families = split_of(split)
    if env_id not in LIVE_IDS:
        raise TomEnvsError(f"{env_id!r} is not a live persuasion id ({', '.join(LIVE_IDS)})")
    version2 = env_id in (V2, TWO_SEAT_V2)
    if env_id == V2:
        env: Any = tom_envs.make(env_id, horizon=HORIZON, personas=list(personas), **env_kwargs)
    else:
        kept = restrict_personas(FAMILIES_V2 if version2 else FAMILIES, list(personas))
        if env_id == V1:
            env = tom_envs.make(env_id, horizon=HORIZON, families=list(kept), **env_kwargs)
        else:
            from policies.persuasion.scripted import SimulatedMindPersuadee
            from wrappers.single_seat import SingleSeat

            aec = tom_envs.make_aec(env_id, horizon=HORIZON, families=list(kept), **env_kwargs)
            env = AsMultiDiscrete(SingleSeat(aec, PERSUADER, {PERSUADEE: SimulatedMindPersuadee()}))
    return EpisodeReturn(SplitFamilies(env, families))


def references(env_id: str, split: str, seeds: Sequence[int], **env_kwargs: Any) -> list[Row]:
    """Rows of the scripted persuaders (:data:`REFERENCES`) on ``split``, episodes ``seeds``, beside the RL rows."""
    from benchmarks.rl_eval import reference_rows
    from policies.persuasion.scripted import MIND_PERSUADERS

    policies = {
        name: (
            MIND_PERSUADERS[name],
            "the persuader's own prediction (its posterior or prior)"
            if name in ("tracking", "bayes", "open-loop")
            else "random prediction",
        )
        for name in REFERENCES
    }
    rows = reference_rows(LIVE, env_id, split, seeds, policies, "persuasion", env_kwargs)
    return exact_rows(env_id, split, seeds, rows[0], env_kwargs) + rows


def exact_rows(
    env_id: str,
    split: str,
    seeds: Sequence[int],
    template: Row,
    env_kwargs: dict[str, Any] | None = None,
    exact: dict[str, str] | None = None,
    make: Any = None,
) -> list[Row]:
    """The env's exact references of episodes ``seeds`` (read at reset: they depend on the family drawn and
    the split's prior only) as rows shaped like ``template``, the success being the reference's value;
    ``exact``: ``tom_outcome()`` key -> row name (default :data:`EXACT`), ``make``: the task's ``make_env``
    (default this module's)."""
    from tom_envs.stats import mean_ci95

    exact = EXACT if exact is None else exact
    env = (make or make_env)(env_id, split, **(env_kwargs or {}))
    values: dict[str, list[float]] = {key: [] for key in exact}
    for seed in seeds:
        env.reset(seed=seed)
        out = env.unwrapped.tom_outcome()
        for key in exact:
            values[key].append(float(out[key]))
    env.close()
    rows = []
    for key, name in exact.items():
        mean, ci = mean_ci95(values[key])
        rows.append(
            {
                **template,
                "policy": name,
                "success": mean,
                "success_ci": ci,
                "tom_accuracy": None,
                "tom_accuracy_ci": None,
                "tom_source": "exact value of the split's prior (no agent)",
                "per_seed": [],
            }
        )
    return rows


LIVE_IDS = (V2, V1, TWO_SEAT_V2, TWO_SEAT_V1)
#: The PPO settings PPO and RecurrentPPO share on live persuasion (each adds its network).
PPO_SETTINGS = {"n_steps": 64, "batch_size": 128, "learning_rate": 1e-3, "ent_coef": 0.01, "gamma": 1.0, "n_epochs": 4}

LIVE = RLTask(
    env_ids=LIVE_IDS,
    make_env=make_env,
    outcome="success",
    splits={
        "train": f"personas {', '.join(TRAIN_PERSONAS)} in families {', '.join(TRAIN_FAMILIES)}",
        "test": f"held-out personas {', '.join(TEST_PERSONAS)} in families {', '.join(TRAIN_FAMILIES)}",
        "test-family": f"held-out family {', '.join(TEST_FAMILIES)} with the training personas it has "
        "(procrastinator, conformist)",
    },
    steps=80_000,
    horizon=HORIZON,
    hyper={
        "ppo": {**PPO_SETTINGS, "policy_kwargs": {"net_arch": [64, 64]}},
        "recurrent_ppo": {**PPO_SETTINGS, "policy_kwargs": {"lstm_hidden_size": 64, "net_arch": [64]}},
    },
    seat=PERSUADER,
    references=references,
    env_kwargs=True,
    task_kwargs=("horizon", "personas", "families", "reader"),
    notes=(
        f"horizon T = {HORIZON}; the references (bayes_success, open_loop_success, oracle_success in "
        "tom_outcome()) are exact for the split's prior; the scripted persuaders plan with the family's full prior",
        "the persuader is trained (the two-seat ids: seat persuader_0; SimulatedMindPersuadee plays persuadee_0)",
    ),
    episodes=300,
    n_envs=8,
    # measured (docs/persuasion_live.md): 3 seeds of RecurrentPPO took 284 s of one core of an idle 16-core
    # machine, about 1.4x that here: 5 seeds would take about 11 min on 2 cores
    algo_seeds={
        "recurrent_ppo": (
            3,
            "3 seeds by default: 5 of RecurrentPPO's default budget (80,000 steps, 300 "
            "episodes) take about 11 min of CPU, over the 10-minute budget",
        )
    },
)
