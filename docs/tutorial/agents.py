"""Step 3 of the tutorial: the family's agents (the ``policies`` layer), on the one Policy protocol
(:class:`policies.base.BasePolicy`: ``reset(seed)``, ``act(observation, info)``, ``predict(...)``).

* :class:`BeliefTracker` -- theory of mind in one rule: Sally sees the marble when the door is open,
  so answer the marble's box then; while the door is closed her belief is where she looked last.
* :class:`Reality` -- the no-ToM floor: answer where the marble is (what a reasoner without a model of
  Sally's mind says; wrong exactly on the false-belief turns).
* :class:`RandomBox` -- chance.
"""

from __future__ import annotations

from typing import Any

from policies.base import BasePolicy


class Answerer(BasePolicy):
    """A policy whose action is its prediction: the box it says Sally will look in (``predict``)."""

    makes_predictions = True

    def act(self, observation: Any, info: dict) -> int:
        return self.predict(observation, info)


class BeliefTracker(Answerer):
    """Tracks Sally's belief from the cue and from where she looked."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.guess: int | None = None

    def predict(self, observation: Any, info: dict) -> int:
        marble, cue, looked = (int(v) for v in observation[:3])
        if looked != 2:
            self.guess = looked
        if cue == 1 or self.guess is None:  # the door is open (or nothing known yet): she sees the marble
            self.guess = marble
        return self.guess


class Reality(Answerer):
    """Answers where the marble is."""

    def predict(self, observation: Any, info: dict) -> int:
        return int(observation[0])


class RandomBox(Answerer):
    """Answers a box at random (its seed from the runner)."""

    def predict(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(2))
