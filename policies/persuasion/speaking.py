"""Persuaders that *speak*: a scripted persuader's choice written as an utterance in a given style.

Issue 27's probe of the reader: the same decisions (here the Bayes persuader's) said plainly, stuffed
with every principle's cue words, with an insult added, or as bare keywords. Through v2's reader
(:class:`tom_envs.persuasion.reader.ReaderV2`) only the plain lines carry their principle; stuffed
and insulting lines cost trust, keywords read as nothing. ``{"action": i, "utterance": text}``
declares the choice (logged only); the env's reader decides what the persuadee hears.
"""

from __future__ import annotations

from typing import Any

from policies.base import BasePolicy
from policies.persuasion.scripted import BayesPersuader
from tom_envs.persuasion.principles import PRINCIPLES

STYLES = ("plain", "stuffed", "insult", "keywords")
#: One plain cue sentence per principle, appended to stuff a line with every principle.
STUFFING = (
    "It's free for you",
    "only a few places are left",
    "everyone is doing it",
    "experts recommend it",
    "just try it once",
    "you're great",
)
INSULT = "Honestly, only an idiot would say no."
KEYWORDS = ("free", "limited", "everyone", "experts", "trial", "appreciate")


class SpeakingPersuader(BasePolicy):
    """Wraps a persuader (default :class:`~policies.persuasion.scripted.BayesPersuader`): its principle,
    written as a templated line (``plain``), the line plus every principle's cue (``stuffed``), the line
    plus an insult (``insult``), or the principle's bare keyword (``keywords``)."""

    makes_predictions = True

    def __init__(self, style: str = "plain", inner: BasePolicy | None = None) -> None:
        super().__init__()
        if style not in STYLES:
            from tom_envs.errors import InvalidAction

            raise InvalidAction(f"style is one of {', '.join(STYLES)}, got {style!r}")
        self.style = style
        self.inner = BayesPersuader() if inner is None else inner

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.inner.reset(seed)

    def predict(self, observation: Any, info: dict) -> dict:
        return self.inner.predict(observation, info)

    def act(self, observation: Any, info: dict) -> dict:
        from tom_envs.persuasion.mind_text import persuader_line

        a = int(self.inner.act(observation, info))
        line = persuader_line(PRINCIPLES[a], str(info.get("goal", "do it")), self.rng)
        if self.style == "stuffed":
            line = f"{line} {'; '.join(STUFFING)}!"
        elif self.style == "insult":
            line = f"{line} {INSULT}"
        elif self.style == "keywords":
            line = KEYWORDS[a]
        return {"action": a, "utterance": line}


def speaking(style: str) -> type[SpeakingPersuader]:
    """A :class:`SpeakingPersuader` class of one style (a factory the benchmark registers by name)."""
    return type(
        f"Bayes{style.capitalize()}Persuader",
        (SpeakingPersuader,),
        {"__init__": lambda self: SpeakingPersuader.__init__(self, style), "__doc__": f"Bayes, {style} lines."},
    )


SPEAKING_PERSUADERS = {f"bayes-{s}": speaking(s) for s in STYLES}

__all__ = ["SPEAKING_PERSUADERS", "STYLES", "SpeakingPersuader", "speaking"]
