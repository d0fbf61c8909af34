"""Language models in live persuasion v1: a persuader that writes its lines, and a reader.

:class:`LLMPersuader` reads the env's text (wrap ``tom/Persuasion-v1`` in
``wrappers.TextObservation``), states its guess of the persuadee's desire, belief and intention
(its literal ToM) and writes its next line; the env's reader decides which strategy the persuadee
hears in it -- so a model that says nothing useful cannot score like one that argues.
:class:`LLMReader` is a reader for the env (``PersuasionMindEnv(reader=LLMReader(backend))``): it
asks a model which of 001's principles a line uses. Both work on any backend (vLLM in-process,
any OpenAI-compatible server) through the one caller (:class:`policies.llm.caller.Caller`):
bounded re-asks, an explicit fallback, counted.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from policies.base import BasePolicy
from policies.llm.base import Backend
from policies.llm.caller import Ask, AsksModel
from policies.llm.decode import Choice, check_decode, choose
from policies.llm.errors import ReplyError
from tom_envs.persuasion.mind import BELIEFS, CONCERNS, MIND_DESIRES, NOTHING
from tom_envs.persuasion.principles import PRINCIPLES

PERSUADER_INSTRUCTIONS = """
Write your next line to {ee}. First give your best guess of {ee}'s state of mind right now, then the line.
Answer in exactly this format:
Desire: no | considering
Belief: trusting | wary   ({ee}'s view of you)
Intention: cost | timing | fit | doubt | effort   (the concern {ee} is acting on)
Line: <what you say to {ee}>"""

READER_PROMPT = """Which persuasion principle does this line use? Principles: reciprocity (favours, benefits, \
concessions), scarcity (rarity, deadlines), consensus (what others do), authority (experts, evidence), \
commitment (a small first step, consistency with what was said), liking (praise, common ground). Say "none" if \
it uses none.
The persuader wants the other person to {goal}.
Line: {line}
Answer with one word."""

_LABEL = re.compile(r"^\s*(desire|belief|intention|line)\s*:\s*(.*)$", re.IGNORECASE)
_WORD_END = re.compile(r"[\s|,.;()]+")
_TARGETS = {"desire": MIND_DESIRES[:2], "belief": BELIEFS, "intention": CONCERNS}


def _first_word(value: str) -> str:
    """A labelled value's first word, lower-cased (``""`` for an empty value)."""
    return _WORD_END.split(value.lower())[0] if value else ""


def parse_persuader_reply(text: str) -> tuple[str, dict[str, int]]:
    """``(line, predictions)`` from a reply in :data:`PERSUADER_INSTRUCTIONS`' format.

    The line is the text after ``Line:``; a reply without that label is taken whole as the line
    (the persuadee hears whatever was said). Predictions are read where a label names a known value.

    Raises:
        ReplyError: the reply holds no words to say.
    """
    line, guesses = None, {}
    for raw in text.splitlines():
        m = _LABEL.match(raw)
        if not m:
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if key == "line":
            line = value
            continue
        word = _first_word(value)
        if word in _TARGETS[key]:
            guesses[key] = _TARGETS[key].index(word)
    if line is None:
        line = text.strip()
    line = line.strip().strip('"').strip()[:600]
    if not line:
        raise ReplyError("the reply holds no line to say (expected 'Line: <what you say>')")
    return line, guesses


def parse_reading(text: str) -> int:
    """A principle index, or ``NOTHING`` for "none", from the first word naming one.

    Raises:
        ReplyError: no principle and no "none" in the reply.
    """
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in PRINCIPLES:
            return PRINCIPLES.index(word)
        if word in ("none", "nothing", "neither"):
            return NOTHING
    raise ReplyError(f"name one of {', '.join(PRINCIPLES)} or none")


class _LLMSeat(BasePolicy, AsksModel):
    """What both persuasion seats share: one caller (its counters kept across episodes: :attr:`stats`), text
    prompts, predictions, and the decision pending between ``predict`` and ``act``. Sampling seeds and
    fallbacks come from the episode's generator, so the caller takes no seed.

    ``decode`` (:mod:`policies.llm.decode`): ``"generate"`` (default) asks for a reply in the seat's answer
    format and parses it; ``"score"`` sends the same prompt and chooses every field of that format by
    log-probability, field by field (no generation, no re-asks, no fallbacks: the choice is always valid).
    """

    makes_predictions = True
    #: it reads its seat's prompt (``benchmarks.persuasion.live.play_two_seat``)
    reads_text = True
    defaults: ClassVar[dict[str, Any]] = {
        "max_resamples": 3,
        "fallback": "raise",
        "temperature": 0.7,
        "max_tokens": 160,
    }

    def __init__(self, backend: Backend, decode: str = "generate", **settings: Any) -> None:
        BasePolicy.__init__(self)
        self.decode = check_decode(decode)
        AsksModel.__init__(self, backend, **settings)
        self._pending: Any = None

    def _choose(self, stage: str, prompt: str, answer: str, field: str, values: Any) -> tuple[int, str]:
        """The most likely of ``values`` as the format's ``field`` after ``answer`` (decode ``"score"``): its
        index, and the answer with that field's line added."""
        field_answer = f"{answer}{field}:"
        got = choose(self.caller, stage, Choice(prompt, field_answer, [f" {v}" for v in values]))
        return got.index, field_answer + got.label + "\n"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._pending = None


class LLMPersuader(_LLMSeat):
    """A language model persuading in ``tom/Persuasion-v1`` (text observations).

    Each turn one ask: the env's text plus :data:`PERSUADER_INSTRUCTIONS`; the reply gives the
    predictions (``predict``) and the line (``act`` returns ``{"utterance": line}``). A reply with
    no words is re-asked up to ``max_resamples`` times; then ``fallback="random"`` plays a uniformly
    random principle (the env writes its templated line; counted in ``stats["fallbacks"]``) and
    ``"raise"`` raises.

    With ``decode="score"`` the same prompt is followed by the format's fields, each chosen by
    log-probability after those already chosen (four ``backend.score`` calls a turn): ``Desire``, ``Belief``
    and ``Intention`` (the predictions), then ``Line:`` followed by a principle's name; ``act`` returns that
    principle's index, and the env writes its templated line for it.

    Args:
        backend: any :class:`~policies.llm.base.Backend`.
        decode: ``"generate"`` or ``"score"`` (:mod:`policies.llm.decode`).
        max_resamples, fallback, temperature: the caller's settings.
        max_tokens: the reply cap (None: 160).
    """

    _key: Any = None  # the (turn, text) the pending decision answers

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._key = None

    def _decide(self, observation: Any, info: dict) -> tuple[Any, dict[str, int]]:
        key = (info.get("turn"), str(observation))
        if self._pending is not None and self._key == key:
            return self._pending
        if not isinstance(observation, str):
            raise ReplyError("LLMPersuader reads text: wrap the env in wrappers.TextObservation")
        ee = info.get("names", {}).get("persuadee", "the other person")
        prompt = observation + "\n" + PERSUADER_INSTRUCTIONS.format(ee=ee)

        def parse(text: str) -> tuple[Any, dict[str, int]]:
            line, guesses = parse_persuader_reply(text)
            return {"utterance": line}, guesses

        def random(rng: np.random.Generator) -> tuple[Any, dict[str, int]]:
            return int(rng.integers(len(PRINCIPLES))), {}

        self.caller.owner.rng = self.rng  # sampling seeds and fallbacks from the episode's generator
        if self.decode == "score":
            value = self._scored(prompt)
        else:
            value = self.caller.ask("persuade", [Ask(prompt, parse, random)])[0].value
        self._pending, self._key = value, key
        return value

    def _scored(self, prompt: str) -> tuple[int, dict[str, int]]:
        """The principle and the predictions chosen by log-probability, field by field."""
        guesses, answer = {}, ""
        for target, values in _TARGETS.items():
            guesses[target], answer = self._choose(f"persuade_{target}", prompt, answer, target.title(), values)
        principle, _ = self._choose("persuade_line", prompt, answer, "Line", PRINCIPLES)
        return principle, guesses

    def predict(self, observation: Any, info: dict) -> dict[str, int] | None:
        guesses = self._decide(observation, info)[1]
        return dict(guesses) if guesses else None

    def act(self, observation: Any, info: dict) -> Any:
        action = self._decide(observation, info)[0]
        self._pending = None
        return action


PERSUADEE_INSTRUCTIONS = """
Reply in character. Answer in exactly this format:
Tone: flat | cold | warm | agree   (warm only if the last line really helped; agree only if you are convinced)
Concern: none | cost | timing | fit | doubt | effort   (the concern you mention, if any)
Next: reciprocity | scarcity | consensus | authority | commitment | liking   (your guess of the persuader's next move)
Say: <your words>"""

_SEAT = re.compile(r"^\s*(tone|concern|next|say)\s*:\s*(.*)$", re.IGNORECASE)


def parse_persuadee_reply(text: str) -> tuple[int, str | None, int | None]:
    """``(reply index, words or None, predicted next strategy or None)`` from a persuadee seat's reply.

    Raises:
        ReplyError: no known tone.
    """
    from tom_envs.persuasion.mind import TONES, TOPICS, obs_index
    from tom_envs.persuasion.mind_two_seat import AGREE

    fields: dict[str, str] = {}
    for raw in text.splitlines():
        m = _SEAT.match(raw)
        if m:
            fields.setdefault(m.group(1).lower(), m.group(2).strip())
    first = {k: _first_word(v) for k, v in fields.items()}
    tone = first.get("tone", "")
    if tone == "agree":
        reply = AGREE
    elif tone in TONES:
        topic = first.get("concern", "none")
        reply = obs_index(TONES.index(tone), TOPICS.index(topic) if topic in TOPICS else 0)
    else:
        raise ReplyError(f"name a tone: {', '.join(TONES)} or agree")
    nxt = first.get("next", "")
    return reply, (fields.get("say") or None), (PRINCIPLES.index(nxt) if nxt in PRINCIPLES else None)


class LLMPersuadee(_LLMSeat):
    """A language model in the persuadee seat of ``tom/Persuasion-TwoSeat-v1``: it reads its own
    prompt (``env.text("persuadee_0")``: persona and current mind; :attr:`reads_text`), replies with a
    tone, the concern it mentions and its words, and predicts the persuader's next strategy (its
    literal ToM). After ``max_resamples`` unusable replies ``fallback="random"`` replies as its mind
    does (the env's ``FAITHFUL``; counted).

    With ``decode="score"`` the same prompt is followed by the format's fields, each chosen by
    log-probability after those already chosen: ``Tone`` (flat, cold, warm or agree), ``Concern`` (unless it
    agrees) and ``Next`` (the prediction); it says no words of its own, so the env voices the reply."""

    defaults: ClassVar[dict[str, Any]] = {**_LLMSeat.defaults, "max_tokens": 120}

    def _decide(self, observation: Any) -> tuple[Any, int | None]:
        if self._pending is not None:
            return self._pending
        if not isinstance(observation, str):
            raise ReplyError("LLMPersuadee reads its prompt: hand it env.text('persuadee_0')")
        from tom_envs.persuasion.mind_two_seat import FAITHFUL

        def parse(text: str) -> tuple[Any, int | None]:
            reply, words, nxt = parse_persuadee_reply(text)
            return ({"action": reply, "utterance": words} if words else reply), nxt

        self.caller.owner.rng = self.rng
        prompt = observation + "\n" + PERSUADEE_INSTRUCTIONS
        if self.decode == "score":
            self._pending = self._scored(prompt)
        else:
            self._pending = self.caller.ask("persuadee", [Ask(prompt, parse, lambda rng: (FAITHFUL, None))])[0].value
        return self._pending

    def _scored(self, prompt: str) -> tuple[int, int]:
        """The reply and the predicted next principle chosen by log-probability, field by field."""
        from tom_envs.persuasion.mind import TONES, TOPICS, obs_index
        from tom_envs.persuasion.mind_two_seat import AGREE

        tone, answer = self._choose("persuadee_tone", prompt, "", "Tone", (*TONES, "agree"))
        reply = AGREE
        if tone < len(TONES):
            topic, answer = self._choose("persuadee_concern", prompt, answer, "Concern", TOPICS)
            reply = obs_index(tone, topic)
        nxt, _ = self._choose("persuadee_next", prompt, answer, "Next", PRINCIPLES)
        return reply, nxt

    def predict(self, observation: Any, info: dict) -> dict[str, int] | None:
        nxt = self._decide(observation)[1]
        return None if nxt is None else {"strategy": nxt}

    def act(self, observation: Any, info: dict) -> Any:
        action = self._decide(observation)[0]
        self._pending = None
        return action


class GreedyReader(AsksModel):
    """What the model readers of a persuader's line share: one greedy caller (temperature 0), seeded, so a
    run repeats (:class:`~policies.llm.caller.AsksModel`).

    Args:
        backend: any :class:`~policies.llm.base.Backend`.
        settings: ``max_resamples`` (3): re-asks of an unusable reply; then ``fallback`` (``"raise"``, or
            ``"random"``: the line reads as nothing; counted); ``seed`` (0): the caller's sampling seeds;
            ``max_tokens``: the reply cap (the reader's :attr:`defaults`).
    """

    defaults: ClassVar[dict[str, Any]] = {"max_resamples": 3, "fallback": "raise", "seed": 0, "max_tokens": 8}
    fixed: ClassVar[dict[str, Any]] = {"temperature": 0.0}


class LLMReader(GreedyReader):
    """Reads a persuader's line with a language model: which principle it uses, or none (a
    :class:`GreedyReader`; replies of at most 8 tokens by default)."""

    name = "llm"

    def read(self, utterance: str, goal: str = "") -> int:
        if not isinstance(utterance, str) or not utterance.strip():
            return NOTHING
        ask = Ask(READER_PROMPT.format(goal=goal, line=utterance.strip()), parse_reading, lambda rng: NOTHING)
        return int(self.caller.ask("read", [ask])[0].value)


__all__ = [
    "GreedyReader",
    "LLMPersuadee",
    "LLMPersuader",
    "LLMReader",
    "parse_persuadee_reply",
    "parse_persuader_reply",
    "parse_reading",
]
