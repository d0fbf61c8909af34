"""The simulated persuadee: one persona's hidden desire and attitude, moved turn by turn.

The one implementation of the persuadee dynamics (:func:`~tom_envs.persuasion.personas.transition`
applied with a generator), shared by the live env (:class:`~tom_envs.persuasion.live.PersuasionEnv`)
and by the agent that fills the persuadee seat of the two-seat env
(``policies.persuasion.SimulatedPersuadee``), so both draw the same trajectories from the same
generator state.
"""

from __future__ import annotations

import numpy as np

from tom_envs.persuasion.personas import NEUTRAL, NO, NONE, UNMOVED, YES, Persona, transition


class Persuadee:
    """A persona's hidden state: desire (no / neutral / yes), attitude, the principle heard last.

    Creating one draws the initial desire from ``rng`` (``no`` with probability
    ``persona.reluctance``, else ``neutral``: one ``rng.random()`` call); the attitude starts unmoved.

    Args:
        persona: the hidden traits.
        rng: the generator the draw comes from (the env's ``np_random``, or an agent's own).
    """

    def __init__(self, persona: Persona, rng: np.random.Generator) -> None:
        self.persona = persona
        self.desire = NO if rng.random() < persona.reluctance else NEUTRAL
        self.attitude = UNMOVED
        self.previous = NONE

    @property
    def convinced(self) -> bool:
        """Whether the desire has reached yes."""
        return self.desire == YES

    def hear(self, principle: int, rng: np.random.Generator, previous: int | None = None) -> None:
        """Move the desire and attitude after ``principle`` was applied (one ``rng.random()`` call).

        Args:
            principle: the principle of this turn (an index of ``PRINCIPLES``).
            rng: the generator of the draw.
            previous: the principle of the turn before, where the caller keeps it (the two-seat
                env's observation); default the one this persuadee heard last.
        """
        before = self.previous if previous is None else previous
        u, acc = rng.random(), 0.0
        for desire, attitude, prob in transition(self.persona, self.desire, before, principle):
            acc += prob
            if u < acc:
                break
        self.desire, self.attitude, self.previous = desire, attitude, principle
