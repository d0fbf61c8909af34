"""An LLM as a focal policy for the repeated matrix games, stepping many episodes in lockstep.

:class:`LLMMatrixPolicy` implements the one Policy protocol. The single-episode forms
(``reset``/``act``/``predict``/``observe``) are the batched forms with one slot, and the batched forms
turn every prompting stage into ONE backend call over all episode slots (e.g. Social prompting: one
call for every prediction, then one for every action; resampling: one call per round over the
slots still without a valid answer). Per round, :meth:`LLMMatrixPolicy.last_step_log` gives the exact
prompts, replies, parse failures, fallbacks and how many decisions each backend call served.

Example::

    backend = VLLMBackend("path/to/model")
    policy = make_llm_policy("social_lm", backend, "RPS", horizon=100)
    policy.reset(seed=0)
    obs, info = env.reset(seed=0)
    prediction = policy.predict(obs, info)   # a distribution over the partner's actions
    action = policy.act(obs, info)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.base import BasePolicy, joint_code
from policies.llm.base import Backend
from policies.llm.errors import InvalidPolicyConfig
from policies.matrix.llm.text import GameText
from policies.llm.slots import Slot, open_slots
from policies.matrix.llm.strategies import STRATEGIES, MatrixStrategy, StageRunner, build_strategy
from tom_envs.errors import TomEnvsError
from tom_envs.matrix.games import MatrixGame, get_game

#: Default sampling temperature of the generation-based strategies (004 samples stochastically).
DEFAULT_TEMPERATURE = 0.7


class LLMMatrixPolicy(BasePolicy):
    """A prompting strategy on a model backend, acting as the focal agent of a matrix game.

    Args:
        strategy: a :class:`MatrixStrategy` (see :func:`make_llm_policy` for names).
        backend: the model; LM-scoring strategies need one that supports ``score``.
        game: the game (name or :class:`MatrixGame`).
        label_set: 004's action labels in prompts (``canonical``, ``letters``, ``neutral``,
            ``repeated``, ``nonsense``).
        horizon: rounds per episode T, as stated in the prompts.
        seed: the policy seed; each episode's generator is derived from it and the episode seed.
        max_resamples: extra attempts after the first for a reply that names no valid action.
        fallback: after the bound, ``"raise"`` (:class:`ResampleLimitReached`) or ``"random"``
            (a uniformly random action, flagged in the step log and counted).
        temperature: sampling temperature of generation stages.
        max_tokens: one cap for every generation stage, or None for the per-stage defaults.
        history_window: show only the latest K rounds of history in prompts (None: all of them), for
            models whose context cannot hold T rounds (:mod:`policies.matrix.llm.context` plans it).
        scoring: how LM prompting compares labels: ``"sum"`` (004: summed log-probabilities of the
            label's tokens) or ``"mean"`` (length-normalised: divided by the label's token count under
            the backend's tokenizer, for multi-token labels such as the repeated and nonsense sets).

    Raises:
        InvalidPolicyConfig: an argument is out of range (the message says which).
    """

    def __init__(
        self,
        strategy: MatrixStrategy,
        backend: Backend,
        game: str | MatrixGame,
        *,
        label_set: str = "neutral",
        horizon: int = 100,
        seed: int = 0,
        max_resamples: int = 10,
        fallback: str = "raise",
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int | None = None,
        history_window: int | None = None,
        scoring: str = "sum",
    ) -> None:
        super().__init__()
        self.runner = StageRunner(
            backend,
            max_resamples=max_resamples,
            fallback=fallback,
            temperature=temperature,
            max_tokens=max_tokens,
            scoring=scoring,
        )
        if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
            raise InvalidPolicyConfig(f"horizon must be a positive integer, got {horizon!r}.")
        if history_window is not None and (
            isinstance(history_window, bool) or not isinstance(history_window, int) or history_window < 1
        ):
            raise InvalidPolicyConfig(f"history_window must be a positive integer or None, got {history_window!r}.")
        self.history_window = history_window
        self.strategy = strategy
        self.backend = backend
        self.game = get_game(game)
        self.horizon = horizon
        self.label_set = label_set
        self.seed = seed
        self.text = GameText(self.game, horizon, label_set, history_window)
        self.makes_predictions = strategy.makes_predictions
        self.name = f"llm_{strategy.name}"
        self._n_b = self.game.n_partner_actions
        self._start = self.game.n_actions * self._n_b
        self._resets = 0
        self._slots: list[Slot] = []  # type: ignore[assignment]

    @property
    def hyperparameters(self) -> dict[str, Any]:
        """What identifies a run of this policy (for result keys)."""
        r = self.runner
        return {
            "strategy": self.strategy.name,
            "label_set": self.label_set,
            "horizon": self.horizon,
            "seed": self.seed,
            "max_resamples": r.max_resamples,
            "fallback": r.fallback,
            "temperature": r.temperature,
            "max_tokens": r.max_tokens,
            "history_window": self.history_window,
            "scoring": r.scoring,
            "model": getattr(self.backend, "model", type(self.backend).__name__),
        }

    @property
    def result_params(self) -> dict[str, Any]:
        """The settings that can change this policy's results, and only those (for result keys): a
        strategy that never samples ignores temperature, generation caps, re-asks and fallbacks; one
        that never scores ignores the scoring rule."""
        params = {k: v for k, v in self.hyperparameters.items() if k != "model"}
        if not self.strategy.generates:
            for key in ("temperature", "max_tokens", "max_resamples", "fallback"):
                del params[key]
        if not self.strategy.needs_scoring:
            del params["scoring"]
        return params

    # ------------------------------------------------------------------ single episode = one slot
    def reset(self, seed: int | None = None) -> None:
        """Start one episode; its randomness comes from the policy seed and ``seed``."""
        self.reset_batch([seed])

    def act(self, observation: Any, info: dict) -> int:
        return self.act_batch([observation], [info])[0]

    def predict(self, observation: Any, info: dict) -> int | np.ndarray | None:
        return self.predict_batch([observation], [info])[0]

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self.observe_batch([observation], [reward], [terminated], [truncated], [info])

    # ------------------------------------------------------------------ batched (lockstep)
    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        """Open one slot per episode; a slot's generator is seeded by (policy seed, episode seed)."""
        self.rng = np.random.default_rng([self.seed, self._resets])
        self._slots = open_slots(self.seed, self._resets, list(seeds))  # type: ignore[assignment]
        self._resets += 1

    def act_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[int]:
        """One action per slot (all, or those listed in ``slots``); each prompting stage is one backend
        call over them."""
        slots = self._begin(observations, infos, slots)
        actions = self.strategy.act(self.runner, self.text, slots)
        for slot, action in zip(slots, actions):
            slot.log["action"] = int(action)
        return [int(a) for a in actions]

    def predict_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[Any]:
        """One literal-ToM prediction per slot (an index, a distribution, or None)."""
        slots = self._begin(observations, infos, slots)
        predictions = self.strategy.predict(self.runner, self.text, slots)
        for slot, p in zip(slots, predictions):
            slot.log["prediction"] = None if p is None else (int(p) if np.ndim(p) == 0 else [float(x) for x in p])
        return [p if p is None or np.ndim(p) else int(p) for p in predictions]

    def observe_batch(
        self, observations, rewards, terminateds, truncateds, infos, slots: Sequence[int] | None = None
    ) -> None:
        """Record each slot's joint action and reward; strategies with a post-round step run it."""
        going_on = []
        for slot, obs, reward, term, trunc, info in zip(
            self._check_batch(observations, slots), observations, rewards, terminateds, truncateds, infos
        ):
            if slot.done:
                continue
            code = joint_code(obs)
            if not 0 <= code < self._start:
                raise TomEnvsError(
                    f"observation {obs!r} is not a joint-action code of {self.game.name} (0..{self._start - 1}); "
                    "pass the observation returned by env.step()."
                )
            slot.history.append(divmod(code, self._n_b))
            slot.rewards.append(float(reward))
            slot.info = info
            slot.cache = {}
            slot.done = bool(term or trunc) or slot.t >= self.horizon
            if not slot.done:
                going_on.append(slot)
        if going_on:
            self.strategy.after_round(self.runner, self.text, going_on)

    # ------------------------------------------------------------------ logs
    def last_step_log(self) -> list[dict]:
        """Per slot, the log of the latest round: ``round``, ``strategy``, ``prompts`` (the exact
        texts and chat messages sent), ``replies``, ``parse_failures``, ``fallback``, ``stages`` (each
        stage's prompts, replies, seeds, parsed answers or label probabilities), ``decisions_per_call``
        (the batch size of each backend call the slot took part in), ``prompt_tokens``,
        ``completion_tokens`` (generation only), ``action`` and ``prediction``."""
        return [copy.deepcopy(s.log) for s in self._slots]

    def episode_stats(self) -> list[dict]:
        """Per slot, counters over the episode: ``parse_failures``, ``fallbacks``, ``requests``,
        ``backend_calls`` (calls the slot took part in), ``decisions``, ``rounds``."""
        return [{**s.stats, "rounds": s.t} for s in self._slots]

    # ------------------------------------------------------------------ checkpoints
    def slot_states(self) -> list[dict[str, Any]]:
        """Per slot, what its next decisions depend on, as JSON-able data (between rounds: after
        ``observe_batch``): the generator's state, history, rewards, memory, counters, done."""
        return [
            {
                "rng": s.rng.bit_generator.state,
                "history": [list(p) for p in s.history],
                "rewards": list(s.rewards),
                "memory": copy.deepcopy(s.memory),
                "stats": dict(s.stats),
                "done": s.done,
            }
            for s in self._slots
        ]

    def restore_slot_states(self, states: Sequence[dict[str, Any]], infos: Sequence[dict] | None = None) -> None:
        """Put the slots opened by :meth:`reset_batch` back into the states :meth:`slot_states` gave
        (and each slot's latest env info), so the episodes go on exactly as they would have."""
        if len(states) != len(self._slots):
            raise InvalidPolicyConfig(
                f"{len(states)} slot states for {len(self._slots)} open slots; call "
                "reset_batch with the same episode seeds first."
            )
        for k, (slot, state) in enumerate(zip(self._slots, states)):
            slot.rng.bit_generator.state = state["rng"]
            slot.history = [(int(a), int(b)) for a, b in state["history"]]
            slot.rewards = [float(r) for r in state["rewards"]]
            slot.memory = copy.deepcopy(state["memory"])
            slot.stats.update(state["stats"])
            slot.done = bool(state["done"])
            slot.cache, slot.log = {}, {}
            if infos is not None:
                slot.info = infos[k]

    # ------------------------------------------------------------------ helpers
    def _begin(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[Slot]:
        picked: list[Slot] = self._check_batch(observations, slots)
        for slot, info in zip(picked, infos):
            if slot.done:
                raise TomEnvsError("act/predict was called after the episode ended; call reset_batch(seeds) first.")
            slot.info = info
            slot.open_round(self.strategy.name)
        return picked


#: Keyword arguments of :func:`make_llm_policy` that go to the strategy rather than the policy.
STRATEGY_OPTIONS = ("lm_sample", "memory")


def make_llm_policy(strategy: str, backend: Backend, game: str | MatrixGame, **kwargs: Any) -> LLMMatrixPolicy:
    """An :class:`LLMMatrixPolicy` running the strategy called ``strategy`` (one of :data:`STRATEGIES`).

    Keyword arguments in :data:`STRATEGY_OPTIONS` go to the strategy: ``lm_sample=True`` samples LM
    actions in proportion to their probability instead of taking the most likely; ``memory=1..3``
    sets Reflexion's memory. The others (``label_set``, ``horizon``, ``seed``, ``max_resamples``,
    ``fallback``, ``temperature``, ``max_tokens``, ``history_window``, ``scoring``) are those of
    :class:`LLMMatrixPolicy`.

    Raises:
        UnknownStrategy: the name is not one of :data:`STRATEGIES`.
    """
    options = {k: kwargs.pop(k) for k in STRATEGY_OPTIONS if k in kwargs}
    return LLMMatrixPolicy(build_strategy(strategy, **options), backend, game, **kwargs)


__all__ = ["DEFAULT_TEMPERATURE", "STRATEGIES", "STRATEGY_OPTIONS", "LLMMatrixPolicy", "make_llm_policy"]
