"""RL settings of the negotiation mediator seat (``tom-envs rl --env tom/Negotiation-v1``): :data:`TASK`.

The mediator seat (``mediator_0``) is trained; the parties are the env's scripted parties, as in
``tom-envs negotiation``. A training env plays, at each reset, one case and one conflict mode of its
split (drawn by a generator seeded by the reset seed), so the agent meets several cases whose
numbers of parties, topics and options differ; :class:`CaseMix` gives them one observation and one
action space:

* **observation** (:func:`mediator_features`, a function of the mediator's own observation only, so
  it sees nothing the env would not show it): the share of the turn budget used and left; the last
  speaker, topic and strategy (one-hot over :data:`MAX_PARTIES` party slots, :data:`MAX_TOPICS`
  topic slots); per topic slot whether it exists, the share of parties that stated a stance on it,
  the share holding the most-stated option and whether every party states the same one; per party
  slot whether it exists, its silence (turns since it spoke / budget) and the share of topics it
  stated; the mean plurality share and the case's size; then :meth:`Moves.features
  <benchmarks.negotiation.rl_moves.Moves.features>` (:data:`N_MOVE_FEATURES`, from the same
  observations as they came, turn by turn, and the agent's own moves): per move whether it has
  something to aim at and how much, turns since the agent's last move, its moves in the last 10
  turns, whether the last line was its own, and the last turn's change in public agreement. All in [0, 1].
* **action** (version 2: ``Discrete(1 + len(MOVES))``): 0 passes, ``1 + i`` is the aimed move
  :data:`MOVES` ``[i]`` of :mod:`benchmarks.negotiation.rl_moves` -- invite (facilitative to the topic
  with the most unheard parties), draw_out (facilitative to the quietest party), reality_test
  (evaluative to a holdout, pointing at the others' plurality), problem_solve (problem-solving on the
  least agreed topic, around the stated plurality), transform (transformative on the topic whose public
  agreement fell most, else the last line's): each aimed by a public rule, so the agent chooses
  *whether* and *which kind* of move, and the rule *where*. A move with nothing to aim at, or fewer than
  ``MIN_GAP`` (4) turns after the agent's previous move, passes: the parties' patience (mistimed moves
  provoke reactance) is then not something every random policy breaks at the start of training, which
  made PPO settle on never intervening with the per-topic action set (version 1,
  ``Discrete(1 + 4 * MAX_TOPICS)``, strategy x topic slot, no target and no option: on the held-out
  cases every seed passed always). Any other action (a dict with an utterance) goes to the env as it is
  (the scripted references' moves).
* **reward**: on the ``train`` split, each turn's change of the env's consensus (``per_turn``); the turns'
  rewards sum to the env's own episode reward (final minus initial consensus), which they replace. That
  consensus starts from the parties' hidden first choices, so this per-turn reward is for training only:
  nothing of it reaches the observation (the features above read the observation alone), and the other
  splits give the env's reward as it is (once, at the end).

Splits (cases: :data:`tom_envs.negotiation.scenario.BUILTIN_SCENARIOS`; modes by id, :data:`MODES`):

* ``train``: cases williams_medical_center, hopkins_hmo, st_francis_hospital, ias, the id's
  training modes;
* ``test`` (held-out cases): flagship and river_basin (6 parties each, more than any training
  case), the same modes;
* ``test-mode`` (held-out cases and conflict mode): the held-out cases in the mode training never
  meets (``tom/Negotiation-v1`` and ``-Easy-``: avoiding); Medium and Hard have one mode each.

Outcome: ``cc`` (002's consensus change, release definition, ``tom_outcome()``). How often the agents
intervene, and with which strategies: :mod:`benchmarks.negotiation.rl_interventions`. References: the scripted mediators
(``none``, ``blind``, ``generic``, ``social``) on the same split and seeds. docs/negotiation.md
("RL") has the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from benchmarks.negotiation.rl_moves import MOVES, N_MOVE_FEATURES, Moves
from benchmarks.rl import RLTask, Row
from policies.base import BasePolicy
from tom_envs.errors import ResetNeeded, TomEnvsError
from tom_envs.tom import ToMSpec

MEDIATOR = "mediator_0"
IDS = (
    "tom/Negotiation-v1",
    "tom/Negotiation-Easy-v1",
    "tom/Negotiation-Medium-v1",
    "tom/Negotiation-Hard-v1",
    # v2: the release's turn order (the mediator first) and its opening line; same cases, modes and features
    "tom/Negotiation-v2",
    "tom/Negotiation-Easy-v2",
    "tom/Negotiation-Medium-v2",
    "tom/Negotiation-Hard-v2",
)
TRAIN_CASES = ("williams_medical_center", "hopkins_hmo", "st_francis_hospital", "ias")
TEST_CASES = ("flagship", "river_basin")
#: id -> (training modes, the held-out mode or None)
MODES: dict[str, tuple[tuple[str, ...], str | None]] = {
    "tom/Negotiation-v1": (("accommodating", "general", "competing"), "avoiding"),
    "tom/Negotiation-Easy-v1": (("accommodating",), "avoiding"),
    "tom/Negotiation-Medium-v1": (("general",), None),
    "tom/Negotiation-Hard-v1": (("competing",), None),
}
MODES.update({v1.replace("-v1", "-v2"): modes for v1, modes in list(MODES.items())})
MAX_PARTIES, MAX_TOPICS, MAX_OPTIONS = 6, 5, 5
N_STRATEGIES = 4
N_FEATURES = 2 + (MAX_PARTIES + 2) + (MAX_TOPICS + 1) + (N_STRATEGIES + 1) + 4 * MAX_TOPICS + 3 * MAX_PARTIES + 3
REFERENCES = ("none", "blind", "generic", "social")


class UnknownCase(TomEnvsError, ValueError):
    """A case or conflict-mode name the mediator task cannot play, or a split it does not have."""


def mediator_features(obs: np.ndarray, n: int, m: int, s_max: int) -> np.ndarray:
    """The case-independent features of the mediator's observation (module docstring), in [0, 1]."""
    obs = np.asarray(obs, dtype=np.int64)
    turn, left = int(obs[1]), int(obs[2])
    budget = max(turn + left, 1)
    out = np.zeros(N_FEATURES, dtype=np.float32)
    out[0], out[1] = turn / budget, left / budget
    at = 2
    speaker = int(obs[3])  # party index, n mediator, n + 1 nobody
    out[at + (speaker if speaker < n else MAX_PARTIES + speaker - n)] = 1.0
    at += MAX_PARTIES + 2
    topic = int(obs[4])
    out[at + (topic if topic < m else MAX_TOPICS)] = 1.0
    at += MAX_TOPICS + 1
    out[at + min(int(obs[5]), N_STRATEGIES)] = 1.0
    at += N_STRATEGIES + 1
    stated = obs[6 : 6 + n * m].reshape(n, m)
    silence = obs[6 + n * m + m * s_max : 6 + n * m + m * s_max + n]
    said = stated < s_max
    shares = []
    for k in range(m):
        opts = stated[said[:, k], k]
        top = int(np.bincount(opts).max()) if opts.size else 0
        shares.append(top / n)
        out[at + 4 * k : at + 4 * k + 4] = (1.0, said[:, k].mean(), top / n, float(top == n))
    at += 4 * MAX_TOPICS
    for i in range(n):
        out[at + 3 * i : at + 3 * i + 3] = (1.0, min(int(silence[i]), budget) / budget, said[i].mean())
    at += 3 * MAX_PARTIES
    out[at : at + 3] = (float(np.mean(shares)), n / MAX_PARTIES, m / MAX_TOPICS)
    return out


class CaseMix(gym.Env):
    """The mediator seat on one case and conflict mode of ``pairs`` per episode (module docstring).

    Each pair's env (``tom_envs.make_aec(env_id, scenario=case, conflict_mode=mode)`` as the mediator's
    :class:`wrappers.single_seat.SingleSeat`) is built on first use. ``reset(seed=s)`` draws the pair
    from a generator seeded by ``s`` and resets its env with ``s``. The ToM contract is the drawn env's,
    its ``stances`` target padded to (:data:`MAX_PARTIES`, :data:`MAX_TOPICS`) with
    ``NOT_PREDICTED`` (-1) in the cells the case lacks (a prediction of -1 there counts for nothing) and
    flattened party by party (:func:`pad_stances`).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, env_id: str, pairs: Sequence[tuple[str, str]], per_turn: bool = False) -> None:
        from tom_envs.negotiation.summary import OUTCOME

        self.env_id, self.pairs, self.per_turn = env_id, tuple(pairs), per_turn
        self._envs: dict[tuple[str, str], Any] = {}
        self.observation_space = spaces.Box(0.0, 1.0, (N_FEATURES + N_MOVE_FEATURES,), np.float32)
        self.action_space = spaces.Discrete(1 + len(MOVES))
        values = np.full(MAX_PARTIES * MAX_TOPICS, 1 + MAX_OPTIONS, dtype=np.int64)
        self.tom_spec = ToMSpec(
            targets={"stances": spaces.MultiDiscrete(values, start=np.full(values.shape, -1))}, outcome=OUTCOME
        )
        self._rng = np.random.default_rng()
        self.current: Any = None
        self.case: str | None = None
        self.mode: str | None = None

    def _env(self, pair: tuple[str, str]) -> Any:
        if pair not in self._envs:
            import tom_envs
            from wrappers.single_seat import SingleSeat

            aec = tom_envs.make_aec(self.env_id, scenario=pair[0], conflict_mode=pair[1])
            base = aec.unwrapped
            if base.n > MAX_PARTIES or base.m > MAX_TOPICS or base.s_max > MAX_OPTIONS:
                raise UnknownCase(
                    f"case {pair[0]!r} has {base.n} parties, {base.m} topics and up to {base.s_max} "
                    f"options; the mediator task takes at most {MAX_PARTIES}, {MAX_TOPICS} and "
                    f"{MAX_OPTIONS}"
                )
            self._envs[pair] = SingleSeat(aec, MEDIATOR, {})
        return self._envs[pair]

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xCA5E]))
        pair = self.pairs[int(self._rng.integers(len(self.pairs)))]
        self.case, self.mode = pair
        self.current = self._env(pair)
        self._return, self._length = 0.0, 0
        obs, info = self.current.reset(seed=seed, options=options)
        base = self.current.aec.unwrapped
        self.moves = Moves(base.n, base.m, base.s_max)
        self._consensus = base.tracker.history[-1]
        return self._features(obs), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.current is None:
            raise ResetNeeded("step() was called before reset(); call env.reset(seed=...) first.")
        move = self._move(action)
        if _intervenes(move):
            self.moves.intervened()
        obs, reward, terminated, truncated, info = self.current.step(move)
        if self.per_turn:
            # the change of the env's consensus over this turn: the turns' rewards sum to the env's own
            # episode reward (final minus initial consensus), which they replace
            history = self.current.aec.unwrapped.tracker.history
            reward = history[-1] - self._consensus
            self._consensus = history[-1]
        self._return += float(reward)
        self._length += 1
        if (terminated or truncated) and isinstance(info.get("episode"), dict):
            # stable-baselines3 reads "r" and "l" from any info["episode"]: added to the env's summary
            info = {**info, "episode": {**info["episode"], "r": self._return, "l": self._length}}
        return self._features(obs), reward, terminated, truncated, info

    def _move(self, action: Any) -> Any:
        """The env's action for ``action``: 0 (pass), a move of :data:`MOVES` aimed by :class:`Moves` (0 when it
        has nothing to aim at), or a structured move (a dict) as it is."""
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(())[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return action  # a structured move (a dict with an utterance): the env reads it
        code = int(action)
        if not 0 <= code < self.action_space.n:
            from tom_envs.errors import InvalidAction

            raise InvalidAction(
                f"the mediator's action is in 0..{self.action_space.n - 1} (0 passes, 1 + i is "
                f"{', '.join(f'{i + 1} {n}' for i, n in enumerate(MOVES))}), got {action!r}"
            )
        if code == 0:
            return 0
        move = self.moves.move(MOVES[code - 1])
        return 0 if move is None else move

    def _features(self, obs: Any) -> np.ndarray:
        """The observation's features (:func:`mediator_features`) and the moves' (:meth:`Moves.features`)."""
        base = self.current.aec.unwrapped
        self.moves.see(obs)
        return np.concatenate([mediator_features(obs, base.n, base.m, base.s_max), self.moves.features()])

    # ------------------------------------------------------------------ ToM contract
    def tom_truth(self) -> dict[str, Any]:
        truth = self.current.tom_truth() if self.current is not None else {}
        if "stances" not in truth:
            return dict(truth)
        return {**truth, "stances": pad_stances(truth["stances"])}

    def tom_outcome(self) -> dict[str, Any]:
        if self.current is None:
            raise ResetNeeded("tom_outcome() before reset(); call env.reset(seed=...) first.")
        return self.current.tom_outcome()

    def text(self) -> str:
        if self.current is None:
            raise ResetNeeded("text() before reset(); call env.reset(seed=...) first.")
        return self.current.text()

    def render(self) -> Any:
        return None if self.current is None else self.current.render()

    def close(self) -> None:
        for env in self._envs.values():
            env.close()


def _intervenes(move: Any) -> bool:
    """Whether the env's mediator action ``move`` is an intervention (not a pass or a conclusion)."""
    if isinstance(move, dict):
        return bool(move.get("intervene", "strategy" in move))
    return not isinstance(move, (bool, np.bool_)) and isinstance(move, (int, np.integer)) and int(move) != 0


def pad_stances(table: Any) -> np.ndarray:
    """A (parties, topics) stance table padded to (:data:`MAX_PARTIES`, :data:`MAX_TOPICS`) with -1 and
    flattened row by row (party-major): :class:`CaseMix`'s ``stances`` target."""
    table = np.asarray(table, dtype=np.int64)
    out = np.full((MAX_PARTIES, MAX_TOPICS), -1, dtype=np.int64)
    out[: table.shape[0], : table.shape[1]] = table
    return out.ravel()


def split_pairs(env_id: str, split: str) -> list[tuple[str, str]]:
    """The (case, conflict mode) pairs of ``split`` on ``env_id``.

    Raises:
        UnknownCase: an id that is not a mediator id of this task, a split it lacks (``test-mode`` on an
            id with one mode), or a case name that is not built in.
    """
    if env_id not in MODES:
        raise UnknownCase(f"{env_id!r} is not a negotiation id of the mediator task ({', '.join(IDS)})")
    train_modes, held_mode = MODES[env_id]
    if split == "train":
        cases, modes = TRAIN_CASES, train_modes
    elif split == "test":
        cases, modes = TEST_CASES, train_modes
    elif split == "test-mode":
        if held_mode is None:
            raise UnknownCase(f"{env_id} has one conflict mode ({train_modes[0]}); its splits are train and test")
        cases, modes = TEST_CASES, (held_mode,)
    else:
        raise UnknownCase(f"unknown split {split!r}; the mediator task's splits: train, test, test-mode")
    return case_pairs(cases, modes)


def case_pairs(cases: Sequence[str], modes: Sequence[str]) -> list[tuple[str, str]]:
    """Every (case, mode) of ``cases`` x ``modes``, the names checked.

    Raises:
        UnknownCase: a case that is not one of the built-in scenarios, or an unknown conflict mode.
    """
    from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, CONFLICT_MODES

    bad = [c for c in cases if c not in BUILTIN_SCENARIOS]
    if bad:
        raise UnknownCase(
            f"unknown case(s) {', '.join(map(repr, bad))}; built-in cases: {', '.join(BUILTIN_SCENARIOS)}"
        )
    bad = [m for m in modes if m not in CONFLICT_MODES]
    if bad:
        raise UnknownCase(f"unknown conflict mode(s) {', '.join(map(repr, bad))}; modes: {', '.join(CONFLICT_MODES)}")
    return [(c, m) for c in cases for m in modes]


def make_env(env_id: str, split: str) -> CaseMix:
    """The mediator's Gymnasium env of ``env_id`` on ``split``."""
    return CaseMix(env_id, split_pairs(env_id, split), per_turn=split == "train")


class PaddedPredictions(BasePolicy):
    """A scripted mediator whose ``stances`` predictions are padded as :class:`CaseMix`'s target is."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy = policy
        self.makes_predictions = getattr(policy, "makes_predictions", False)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.policy.reset(seed)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self.policy.observe(observation, reward, terminated, truncated, info)

    def act(self, observation: Any, info: dict) -> Any:
        return self.policy.act(observation, info)

    def predict(self, observation: Any, info: dict) -> Any:
        pred = self.policy.predict(observation, info)
        if isinstance(pred, dict) and "stances" in pred:
            return {**pred, "stances": pad_stances(pred["stances"])}
        return pred


def references(env_id: str, split: str, seeds: Sequence[int]) -> list[Row]:
    """Rows of the scripted mediators (:data:`REFERENCES`) on ``split``, episodes ``seeds``."""
    from benchmarks.rl_eval import reference_rows
    from policies.negotiation.scripted import make_mediator

    policies = {
        name: (
            (lambda name=name: PaddedPredictions(make_mediator(name))),
            "the mediator's stance prediction" if name == "social" else None,
        )
        for name in REFERENCES
    }
    return reference_rows(TASK, env_id, split, seeds, policies, "negotiation")


TASK = RLTask(
    env_ids=IDS,
    make_env=make_env,
    outcome="cc",
    splits={
        "train": f"cases {', '.join(TRAIN_CASES)}; the id's training conflict modes (tom/Negotiation-v1: "
        "accommodating, general, competing; Easy: accommodating; Medium: general; Hard: competing)",
        "test": f"held-out cases {', '.join(TEST_CASES)}; the same modes",
        "test-mode": f"held-out cases {', '.join(TEST_CASES)} in the held-out mode avoiding (tom/Negotiation-v1, Easy)",
    },
    steps=30_000,
    hyper={
        "ppo": {"n_steps": 256, "batch_size": 256, "learning_rate": 3e-4, "ent_coef": 0.03, "gamma": 1.0, "n_epochs": 5}
    },
    seat=MEDIATOR,
    references=references,
    notes=(
        "the mediator seat is trained; every party is the env's scripted party; cc is 002's consensus change "
        "(release definition)",
        "the agent passes or makes one of five aimed moves (benchmarks/negotiation/rl_moves.py), at most one every "
        "4 turns; its training reward is each turn's change of the env's consensus (summing to final minus "
        "initial consensus, the env's reward); intervention rates: python -m "
        "benchmarks.negotiation.rl_interventions",
    ),
    episodes=60,
    n_envs=4,
)

__all__ = [
    "CaseMix",
    "MAX_OPTIONS",
    "MAX_PARTIES",
    "MAX_TOPICS",
    "MODES",
    "MOVES",
    "N_FEATURES",
    "N_MOVE_FEATURES",
    "TASK",
    "TEST_CASES",
    "TRAIN_CASES",
    "UnknownCase",
    "case_pairs",
    "make_env",
    "mediator_features",
    "pad_stances",
    "split_pairs",
]
