"""The hidden-role seats (the ``policies`` layer): scripted players, two scripted detectives and an LLM detective.

Every agent implements the one Policy protocol (:mod:`policies.base`) and reads only its own seat's
observation. The LLM detective is built on the shared LLM core: one :class:`policies.llm.Caller`
asks for every episode whose turn it is in one backend call (``predict_batch`` / ``act_batch`` with
``slots=``), with bounded re-asks, an explicit fallback and the core's counters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from hidden_role.env import NAMED, PASS, TALK, describe
from policies.base import BasePolicy, select_slots
from policies.llm.base import Backend
from policies.llm.caller import Ask, Caller, EventLog
from policies.llm.errors import ReplyError


# ---------------------------------------------------------------------- reading an observation
def named_counts(obs: dict[str, Any]) -> np.ndarray:
    """How often each player has been named a suspect so far."""
    said = np.asarray(obs["said"])
    n = said.shape[1]
    return np.bincount(said[said >= NAMED] - NAMED, minlength=n)


def accusations_made(obs: dict[str, Any]) -> np.ndarray:
    """How many suspects each player has named so far."""
    return (np.asarray(obs["said"]) >= NAMED).sum(axis=0)


def _others(obs: dict[str, Any]) -> list[int]:
    n = np.asarray(obs["votes"]).shape[0]
    return [k for k in range(n) if k != int(obs["me"])]


def suspicion(obs: dict[str, Any]) -> np.ndarray:
    """The tally detective's score of each player: whether it named a suspect in the first round
    (innocents know nothing yet; an impostor deflects at once), plus 0.4 per time it has been named;
    the seat itself scores -inf."""
    said = np.asarray(obs["said"])
    score = (said[0] >= NAMED) + 0.4 * named_counts(obs)
    score = score.astype(float)
    score[int(obs["me"])] = -np.inf
    return score


# ---------------------------------------------------------------------- scripted seats
class ScriptedPlayer(BasePolicy):
    """Any seat but the detective's, by its own role. An impostor deflects: it names a random other
    player in most talk turns and votes for whoever was named most. An innocent mostly stays quiet
    in the first round, then names (and votes for) whoever has accused most, since an accuser may
    be deflecting."""

    def act(self, observation: dict[str, Any], info: dict) -> int:
        others = _others(observation)
        impostor = bool(observation["role"])
        if observation["phase"] == TALK:
            if impostor:
                return 1 + int(self.rng.choice(others)) if self.rng.random() < 0.8 else PASS
            if int(observation["round"]) == 0:
                return 1 + int(self.rng.choice(others)) if self.rng.random() < 0.3 else PASS
            made = accusations_made(observation)[others]
            if made.max() == 0 or self.rng.random() >= 0.8:
                return PASS
            return 1 + self._pick(others, made)
        counts = (named_counts(observation) if impostor else accusations_made(observation))[others]
        return 1 + self._pick(others, counts)

    def _pick(self, others: list[int], counts: np.ndarray) -> int:
        top = [k for k, c in zip(others, counts) if c == counts.max()]
        return int(self.rng.choice(top))


class TallyDetective(BasePolicy):
    """The scripted detective: its suspect is the player with the highest :func:`suspicion` (its
    prediction: uniform over the tied top players); it names that player in talk and votes for it."""

    makes_predictions = True

    def predict(self, observation: dict[str, Any], info: dict) -> list[float]:
        score = suspicion(observation)
        top = score == score.max()
        return (top / top.sum()).tolist()

    def act(self, observation: dict[str, Any], info: dict) -> int:
        if observation["phase"] == TALK and accusations_made(observation).sum() == 0:
            return PASS
        return 1 + int(np.argmax(suspicion(observation)))


class RandomDetective(BasePolicy):
    """Guesses, names and votes uniformly at random among the others (the chance level)."""

    makes_predictions = True

    def predict(self, observation: dict[str, Any], info: dict) -> int:
        return int(self.rng.choice(_others(observation)))

    def act(self, observation: dict[str, Any], info: dict) -> int:
        return 1 + int(self.rng.choice(_others(observation)))


# ---------------------------------------------------------------------- the LLM seat
INSTRUCTIONS = """
Answer in exactly two lines:
Impostor: player_<k>   (your best guess of who the impostor is; not yourself)
Action: player_<k> or pass   (now: the player you name as a suspect, or the player you vote to eject)"""

_IMPOSTOR = re.compile(r"impostor\s*:\s*\**\s*player[_ ]?(\d+)", re.IGNORECASE)
_ACTION = re.compile(r"action\s*:\s*\**\s*(pass|player[_ ]?(\d+))", re.IGNORECASE)


def parse_reply(text: str, me: int, n: int) -> tuple[int, int]:
    """``(predicted impostor, action)`` from a reply in :data:`INSTRUCTIONS`' format.

    Raises:
        ReplyError: a line is missing, or names no other player of the game.
    """
    guess, act = _IMPOSTOR.search(text), _ACTION.search(text)
    if guess is None or act is None:
        raise ReplyError("give both lines, 'Impostor: player_<k>' and 'Action: player_<k>' (or 'Action: pass')")
    k = int(guess.group(1))
    if not 0 <= k < n or k == me:
        raise ReplyError(f"the impostor is one of the other players (player_0..player_{n - 1}, not player_{me})")
    if act.group(2) is None:
        return k, PASS
    j = int(act.group(2))
    if not 0 <= j < n:
        raise ReplyError(f"name a player of the game (player_0..player_{n - 1}) or pass")
    return k, 1 + j


class LLMDetective(BasePolicy):
    """A language model in the detective seat: each turn it reads its seat's text
    (:func:`hidden_role.env.describe` of its observation, what ``env.text(agent)`` returns) and answers
    its guess of the impostor (``predict``) and its move (``act``) in one reply.

    Batched: ``predict_batch`` / ``act_batch`` with ``slots=`` ask for every listed episode in one
    backend call (:class:`policies.llm.Caller`); the single forms are the batched ones on one slot,
    so one-by-one and lockstep play give the same episodes. Each episode slot owns its decisions
    (sampling seeds and fallbacks from its generator, seeded by the episode's seed; its counters in
    :meth:`episode_stats`).

    Args:
        backend: any :class:`~policies.llm.base.Backend`.
        max_resamples, fallback, temperature, max_tokens: the caller's settings (``fallback="random"``:
            a random guess and move after ``max_resamples`` unusable replies, counted).
    """

    makes_predictions = True

    def __init__(
        self,
        backend: Backend,
        *,
        max_resamples: int = 3,
        fallback: str = "raise",
        temperature: float = 0.7,
        max_tokens: int = 40,
    ) -> None:
        super().__init__()
        self.caller = Caller(
            backend, max_resamples=max_resamples, fallback=fallback, temperature=temperature, max_tokens=max_tokens
        )
        self._owners: list[EventLog] = []
        self._pending: dict[int, tuple[int, int]] = {}

    # -- single episode: one slot
    def reset(self, seed: int | None = None) -> None:
        self.reset_batch([seed])

    def predict(self, observation: dict[str, Any], info: dict) -> int:
        return self.predict_batch([observation], [info], slots=[0])[0]

    def act(self, observation: dict[str, Any], info: dict) -> int:
        return self.act_batch([observation], [info], slots=[0])[0]

    # -- batched
    def reset_batch(self, seeds: Sequence[int | None]) -> None:
        self._owners = [EventLog(np.random.default_rng(seed)) for seed in seeds]
        self._pending = {}

    def predict_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[int]:
        picked = self._decide(observations, slots)
        return [self._pending[i][0] for i in picked]

    def act_batch(
        self, observations: Sequence[Any], infos: Sequence[dict], slots: Sequence[int] | None = None
    ) -> list[int]:
        picked = self._decide(observations, slots)
        return [self._pending.pop(i)[1] for i in picked]

    def episode_stats(self) -> list[dict[str, int]]:
        """Each slot's counters (``backend_calls``, ``requests``, ``decisions``, ``parse_failures``, ``fallbacks``)."""
        return [dict(owner.stats) for owner in self._owners]

    def _decide(self, observations: Sequence[Any], slots: Sequence[int] | None) -> list[int]:
        """Ask, in one call, for the listed slots that have no pending decision; returns the slots."""
        picked = select_slots(list(range(len(self._owners))), len(observations), slots)
        todo = [(i, obs) for i, obs in zip(picked, observations) if i not in self._pending]
        asks = [self._ask(obs, self._owners[i]) for i, obs in todo]
        for (i, _), answer in zip(todo, self.caller.ask("detective", asks)):
            self._pending[i] = answer.value
        return picked

    @staticmethod
    def _ask(obs: dict[str, Any], owner: EventLog) -> Ask:
        me, n = int(obs["me"]), int(np.asarray(obs["votes"]).shape[0])
        others = [k for k in range(n) if k != me]

        def random(rng: np.random.Generator) -> tuple[int, int]:
            return int(rng.choice(others)), 1 + int(rng.choice(others))

        return Ask(describe(obs) + "\n" + INSTRUCTIONS, lambda text: parse_reply(text, me, n), random, owner)


__all__ = [
    "INSTRUCTIONS",
    "LLMDetective",
    "RandomDetective",
    "ScriptedPlayer",
    "TallyDetective",
    "parse_reply",
    "suspicion",
]
