"""``tom/Negotiation-v2``: the negotiation env with the release's turn order and opening line.

ProMediate-Eval's loop (``multiparty_conversation_negotiate.py``) opens the session with a fixed line
("Welcome everyone! Let's discuss!": the mediator's, or in its NoAgent method a random party's), then
lets the mediator decide first in every turn; only when it does not speak do the parties' thoughts
compete and the most motivated one is put into words. v1 asks the parties before the mediator, so an
LLM party worded a line in turns where the mediator then spoke; v2 plays the release's order.
"""

from __future__ import annotations

from typing import Any

from tom_envs.negotiation.actions import parse_mediator, parse_party
from tom_envs.negotiation.env import NegotiationEnv, conclusion_of
from tom_envs.negotiation.errors import NegotiationConfigError
from tom_envs.negotiation.turns import MEDIATOR, MEDIATOR_NAME

#: The release's opening line (``start_message`` of its loop).
OPENING_LINE = "Welcome everyone! Let's discuss!"
#: Who says it: ``auto`` (the mediator when the seat exists, else a random party), ``mediator``, ``party``
#: (a random party from the env's seeded generator: the release's NoAgent method) or ``none`` (no line).
OPENINGS = ("auto", "mediator", "party", "none")


class NegotiationEnvV2(NegotiationEnv):
    """:class:`~tom_envs.negotiation.env.NegotiationEnv` with the release's turn order and opening line.

    Everything not listed here is as in v1 (see its docstring: spaces, rewards, info keys, the
    information rule).

    ## Agents
    ``mediator_0`` (when ``mediator=True``), then ``party_i`` for each party in ``party_seats``. Each
    turn the mediator acts first. An intervention or a conclusion resolves the turn at once: the party
    seats are not asked in that turn (the release's ``continue``). When it passes, every party seat
    acts once, in order, and the turn is resolved after the last one: the most motivated candidate
    speaks, as in v1. With no party seat the mediator's step resolves every turn.

    ## Opening
    Before turn 1 the transcript holds the release's opening line, :data:`OPENING_LINE`, as an event
    of turn 0 (``kind`` ``"opening"``, no topic): in every seat's ``info["state"]["events"]``, its text
    (``env.text``), ``render()`` and the episode's ``transcript``; the observation's "last speaker" is its
    speaker. It states no stance, moves no consensus and is not a mediator line for the metrics. A party
    that opened does not speak again in turn 1 when scripted (nobody twice in a row, as in the release).

    ## Rewards and metrics
    Rewards and the paper's metrics as v1. The release's metrics (``cc``, ``tle``, ``rl``, ``me`` under
    ``metrics="release"``, ``success_rate``, ``success_rate_max``, ``drops["release"]``) read the series the
    release's ``scripts/evaluation.py`` reads: its consensus pipeline stores a score for every line, the
    opening included, so the series is ``[c0, c0, c1, ..., cT]`` and turn t is its line t
    (:meth:`~tom_envs.negotiation.summary.EpisodeScoring._release_series`). ``mediator_frequency``: mediator
    lines (interventions, conclusion; never the opening) per line of the transcript, the opening included --
    the release's ``evaluate_frequency`` for a run its mediator opens.

    ## Arguments
    As v1, plus ``opening`` (keyword only): ``"auto"`` (default: the mediator when the seat exists,
    else a random party), ``"mediator"``, ``"party"`` (a random party drawn from the env's generator
    seeded by ``reset``: the release's NoAgent method, whose mediator is absent) or ``"none"``.

    ## Version History
    * v2: the mediator acts first in every turn and the party seats only when it passes (v1 asked the
      parties first, so an LLM party worded lines the mediator then talked over); the release's opening
      line; ``mediator_frequency`` counts the opening line as the release does. Not parallelizable: a
      turn in which the mediator speaks asks no party seat. Issue 41 (same id; dynamics and rewards
      unchanged): the release's metrics read the release's series, with the opening line's entry (before,
      CC differed from the release's script on the same transcript in 22 of 96 scripted episodes on the
      released cases, by up to 1.5 points).
    * v1, v0: see :class:`~tom_envs.negotiation.env.NegotiationEnv`.
    """

    metadata = {"name": "tom_negotiation_v2", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, scenario: Any = "hopkins_hmo", *, opening: str = "auto", **kwargs: Any) -> None:
        super().__init__(scenario, **kwargs)
        if opening not in OPENINGS:
            raise NegotiationConfigError(f"opening must be one of {OPENINGS}, got {opening!r}")
        if opening == "mediator" and not self.has_mediator:
            raise NegotiationConfigError(
                "opening='mediator' needs the mediator seat (mediator=True); use 'party' "
                "(a random party opens, as the release's NoAgent method) or 'auto'"
            )
        self.opening = opening
        # the mediator decides first in every turn (the release's loop)
        self.possible_agents = [a for a in self.possible_agents if a == MEDIATOR] + [
            a for a in self.possible_agents if a != MEDIATOR
        ]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed, options)
        who = self.opening
        if who == "auto":
            who = "mediator" if self.has_mediator else "party"
        if who == "mediator":
            self.events.append(
                {
                    "turn": 0,
                    "speaker": MEDIATOR_NAME,
                    "seat": MEDIATOR,
                    "kind": "opening",
                    "topic": None,
                    "topic_index": None,
                    "text": OPENING_LINE,
                }
            )
        elif who == "party":  # drawn after everything v1's reset draws, from the same seeded generator
            i = int(self.np_random.integers(self.n))
            self.events.append(
                {
                    "turn": 0,
                    "speaker": self.scenario.parties[i].name,
                    "seat": f"party_{i}",
                    "party": i,
                    "kind": "opening",
                    "topic": None,
                    "topic_index": None,
                    "option": None,
                    "tone": None,
                    "text": OPENING_LINE,
                }
            )
        self.infos = {a: self._info(a) for a in self.agents}

    def play(self, agent: str, action: Any) -> None:
        order = self.agents
        if agent == MEDIATOR:
            self._conclusion = conclusion_of(action, agent)
            move = parse_mediator(action, self.scenario, agent)
            self._pending[agent] = move
            if self._conclusion is None and move.strategy is None and len(order) > 1:
                self.agent_selection = order[1]  # it passes: the party seats act
                return
        else:
            self._pending[agent] = parse_party(action, self.scenario, agent)
            idx = order.index(agent)
            if idx + 1 < len(order):
                self.agent_selection = order[idx + 1]
                return
        self._resolve_turn()
        self.agent_selection = order[0]

    def _frequency_lines(self) -> int:
        """The release's denominator: every line of the transcript, the opening included."""
        return len(self.events)


def env(**kwargs: Any) -> NegotiationEnvV2:
    """The AEC env (PettingZoo module convention); v2 has no parallel view (see the Version History)."""
    return NegotiationEnvV2(**kwargs)


__all__ = ["OPENINGS", "OPENING_LINE", "NegotiationEnvV2", "env"]
