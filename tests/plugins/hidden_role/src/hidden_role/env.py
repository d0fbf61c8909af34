"""A hidden-role game (PettingZoo AEC): find the impostor by what the others say (the ``tom_envs`` layer).

This module is the plugin's environment layer: it imports :mod:`tom_envs` only (docs/architecture.md,
"Layering"), keeps the ToM contract of :mod:`tom_envs.tom` and the information rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import logger, spaces

from tom_envs.aec import TomAECEnv
from tom_envs.errors import InvalidAction, TomEnvsError, UnsupportedRenderMode, check_options
from tom_envs.tom import ToMSpec

DETECTIVE = "player_0"
#: ``said`` entries: not spoken yet, stayed quiet, then ``NAMED + k`` = named player k.
UNSPOKEN, QUIET, NAMED = 0, 1, 2
#: ``phase`` values.
TALK, VOTE = 0, 1
PASS = 0  # the action "say nothing" (talk) / "abstain" (vote); action 1 + k names player k


class HiddenRoleError(TomEnvsError, ValueError):
    """Bad arguments to :class:`HiddenRoleEnv`."""


def seat(index: int) -> str:
    return f"player_{index}"


class HiddenRoleEnv(TomAECEnv):
    """``n_players`` seats; one of them, drawn from the seed, is secretly the impostor.

    ``player_0`` is the detective: never the impostor, it is the seat whose predictions are scored.
    Play: ``rounds`` talk rounds in which every seat, ``player_0`` first, says one thing in public
    (nothing, or "I suspect player k"), then one open vote in the same order. The player with
    strictly the most votes is ejected; the innocents win when it is the impostor.

    ## Action Space
    Every seat: ``Discrete(n_players + 1)``. 0: say nothing (talk) / abstain (vote); ``1 + k``: name
    player k ("I suspect player k" / "I vote for player k").

    ## Observation Space
    A ``Dict`` per seat: ``phase`` (0 talk, 1 vote), ``round`` (the talk round, ``rounds`` in the
    vote), ``me`` (the seat's index), ``role`` (the seat's *own* role: 1 impostor, 0 innocent),
    ``said`` (``rounds`` x ``n_players``: 0 not yet, 1 said nothing, ``2 + k`` named player k) and
    ``votes`` (``n_players``: 0 not yet, 1 abstained, ``2 + k`` voted for player k). A seat sees its
    own role and what everyone said and voted; nothing about anyone else's role. Text for a
    language model in a seat: ``text(agent)``, rendered from that seat's observation only
    (:func:`describe`).

    ## Rewards
    At the end only: +1 to every innocent and -1 to the impostor when the impostor is ejected, the
    reverse otherwise; 0 on every other step.

    ## Episode End
    After the last vote (``n_players * (rounds + 1)`` steps); all seats terminate.

    ## ToM contract
    Predictor ``player_0``; target ``impostor`` (``Discrete(n_players)``: its index), resolved by the
    last vote, when the result and the roles are made public. Outcome: ``win`` (the innocents won,
    1.0/0.0), ``correct_vote`` (``player_0`` voted for the impostor), ``impostor_votes`` (votes it
    got); None before the end.

    ## Arguments
    ``n_players`` (3-8, default 4), ``rounds`` (talk rounds, 1-5, default 2), ``render_mode``
    (None or ``"ansi"``).

    ## Info keys
    Empty during play; at the end every seat's info holds ``impostor``, ``ejected`` (an index or
    None) and ``win``: public then.

    ## Version history
    v0: the first version.
    """

    # what the information-rule checker may treat as public (nothing undeclared is): the table everyone sees (what
    # was said, the votes, the phase and round, one's own seat), and each seat's own role, known to that seat only
    tom_public = ("obs.phase", "obs.round", "obs.me", "obs.said", "obs.said[*]", "obs.votes", "obs.votes[*]")
    tom_private = {"player_*": ("obs.role",)}

    metadata = {"name": "tom_hidden_role_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, n_players: int = 4, rounds: int = 2, render_mode: str | None = None) -> None:
        super().__init__()
        for name, value, lo, hi in (("n_players", n_players, 3, 8), ("rounds", rounds, 1, 5)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
                raise HiddenRoleError(f"{name} is an integer in {lo}..{hi}, got {value!r}")
        if render_mode not in (None, "ansi"):
            raise UnsupportedRenderMode(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.n, self.rounds, self.render_mode = int(n_players), int(rounds), render_mode
        self.possible_agents = [seat(i) for i in range(self.n)]
        obs = spaces.Dict(
            {
                "phase": spaces.Discrete(2),
                "round": spaces.Discrete(self.rounds + 1),
                "me": spaces.Discrete(self.n),
                "role": spaces.Discrete(2),
                "said": spaces.MultiDiscrete(np.full((self.rounds, self.n), NAMED + self.n, dtype=np.int64)),
                "votes": spaces.MultiDiscrete(np.full(self.n, NAMED + self.n, dtype=np.int64)),
            }
        )
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n + 1) for a in self.possible_agents}
        self.tom_spec = ToMSpec(
            targets={"impostor": spaces.Discrete(self.n)},
            outcome=("win", "correct_vote", "impostor_votes"),
            predictor=DETECTIVE,
        )
        self.impostor = 1
        self.infos: dict[str, dict] = {}

    # ------------------------------------------------------------------ AEC
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # it reads none: a misspelt one is a named error ("options" is the key PettingZoo's api_test passes)
        check_options(options, ("options",), "HiddenRoleEnv")
        rng = self.reseed(seed)
        # never the detective; drawn from a child stream, so that nothing seeded like the env (a policy
        # or an action space given the same seed) replays the draw
        self.impostor = 1 + int(rng.spawn(1)[0].integers(self.n - 1))
        self.phase, self.round, self.turn = TALK, 0, 0
        self.said = np.zeros((self.rounds, self.n), dtype=np.int64)
        self.votes = np.zeros(self.n, dtype=np.int64)
        self.ejected: int | None = None
        self.done = False
        self.start_episode(seat(0))
        self.infos = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, Any]:
        me = self.possible_agents.index(agent)
        return {
            "phase": self.phase,
            "round": self.round,
            "me": me,
            "role": int(me == self.impostor),
            "said": self.said.copy(),
            "votes": self.votes.copy(),
        }

    def play(self, agent: str, action: Any) -> None:
        choice = self._check(action)
        if self.phase == TALK:
            self.said[self.round, self.turn] = QUIET if choice == PASS else NAMED + choice - 1
        else:
            self.votes[self.turn] = QUIET if choice == PASS else NAMED + choice - 1
        self.turn += 1
        if self.turn == self.n:
            self.turn = 0
            if self.phase == TALK:
                self.round += 1
                if self.round == self.rounds:
                    self.phase = VOTE
            else:
                self._finish()
                return
        self.agent_selection = seat(self.turn)

    def _check(self, action: Any) -> int:
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = int(action)
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= int(action) <= self.n
        ):
            raise InvalidAction(
                f"an action is an index in 0..{self.n} (0 nothing / abstain, 1 + k names player k); got {action!r}"
            )
        return int(action)

    def _finish(self) -> None:
        counts = np.bincount(self.votes[self.votes >= NAMED] - NAMED, minlength=self.n)
        top = np.flatnonzero(counts == counts.max())
        self.ejected = int(top[0]) if counts.max() > 0 and len(top) == 1 else None
        self.done = True
        won = self.ejected == self.impostor
        for i, a in enumerate(self.possible_agents):
            innocent = i != self.impostor
            self.rewards[a] = 1.0 if won == innocent else -1.0
        self.terminations = {a: True for a in self.agents}
        self.infos = {a: {"impostor": self.impostor, "ejected": self.ejected, "win": won} for a in self.agents}
        self.resolve(impostor=self.impostor)  # public now: the vote is over and the roles are shown
        self.agent_selection = seat(0)

    # ------------------------------------------------------------------ ToM contract
    def tom_outcome(self) -> dict[str, Any]:
        if not self.started or not self.done:
            return {"win": None, "correct_vote": None, "impostor_votes": None}
        return {
            "win": float(self.ejected == self.impostor),
            "correct_vote": float(self.votes[0] == NAMED + self.impostor),
            "impostor_votes": int((self.votes == NAMED + self.impostor).sum()),
        }

    # ------------------------------------------------------------------ text
    def text(self, agent: str) -> str:
        """The seat's prompt: rendered from its own observation (:func:`describe`), nothing more."""
        return describe(self.observe(agent))

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; pass render_mode='ansi'.")
            return None
        return describe(self.observe(DETECTIVE)) if self.started else ""


def describe(obs: dict[str, Any]) -> str:
    """The text a language model in a seat reads, from that seat's observation alone (so the text
    holds nothing the structured observation does not)."""
    said, votes = np.asarray(obs["said"]), np.asarray(obs["votes"])
    rounds, n = said.shape
    me = int(obs["me"])
    role = (
        "the impostor: the others must not find you out"
        if obs["role"]
        else "innocent: one of the others is secretly the impostor"
    )
    lines = [
        f"You are player_{me} in a game of {n} players ({', '.join(seat(i) for i in range(n))}); you are {role}.",
        f"Each of {rounds} talk rounds, every player in turn says nothing or names a suspect; then everyone votes "
        "openly, in the same order. The player with strictly the most votes is ejected; the innocents win if it "
        "is the impostor.",
        "",
        "What was said:",
    ]
    spoken = False
    for r in range(rounds):
        for i in range(n):
            if said[r, i] != UNSPOKEN:
                spoken = True
                what = "said nothing" if said[r, i] == QUIET else f"suspects player_{int(said[r, i]) - NAMED}"
                lines.append(f"round {r + 1}: player_{i} {what}")
    if not spoken:
        lines.append("(nothing yet)")
    cast = [(i, v) for i, v in enumerate(votes) if v != UNSPOKEN]
    if cast:
        lines += ["", "Votes so far:"] + [
            f"player_{i} " + ("abstained" if v == QUIET else f"voted for player_{int(v) - NAMED}") for i, v in cast
        ]
    lines.append("")
    if obs["phase"] == TALK:
        lines.append(f"It is your turn to speak (round {int(obs['round']) + 1}): name the player you suspect, or pass.")
    else:
        lines.append("It is your turn to vote: name the player to eject, or pass to abstain.")
    return "\n".join(lines)


def env(**kwargs: Any) -> HiddenRoleEnv:
    """The AEC env (PettingZoo module convention)."""
    return HiddenRoleEnv(**kwargs)
