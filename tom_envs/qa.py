"""What the question-answering families share: dialogue stepping, choice spaces, text rendering.

A QA episode is one dialogue (or conversation) stepped turn by turn; at each turn the agent
answers that turn's questions, one env step each. Families (persuasion, common ground) turn their
datasets into :class:`QAItem` lists and subclass :class:`QAEnv`.
"""

from __future__ import annotations

import hashlib
import json
import string
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
from gymnasium import spaces

from tom_envs.base import TomEnv
from tom_envs.errors import InvalidAction, TomEnvsError, require_bool
from tom_envs.tom import ToMSpec

#: Option letters, in order; a question has at most this many options.
LETTERS = "ABCDEFGHIJ"

#: Pieces of the question text, shared by :func:`render_question` (the env's ``obs["text"]``) and the
#: LLM answerer's prompts (``policies.llm.qa``), so both word a question the same way.
BACKGROUND_HEADER = "Background:"
DIALOGUE_HEADER = "Dialogue:"
NOTHING_SAID = "(nothing has been said yet)"
QUESTION_PREFIX = "Question: "

#: When a QA env returns what is known after the fact (answers, rewards): ``"episode"`` -- with the
#: episode's last step only (the default: answers within a dialogue correlate, so the answer of one
#: question given back with the next one would give part of that one away); ``"step"`` -- with the
#: step that answered each question (per-question reward, for training).
FEEDBACK_MODES = ("episode", "step")


def option_lines(choices: Sequence[str]) -> list[str]:
    """The options as lettered lines, ``"A. first"``, ``"B. second"``, ...

    Raises:
        TomEnvsError: more options than :data:`LETTERS`.
    """
    if len(choices) > len(LETTERS):
        raise TomEnvsError(f"a question may have at most {len(LETTERS)} options, got {len(choices)}")
    return [f"{LETTERS[i]}. {c}" for i, c in enumerate(choices)]


@dataclass(frozen=True)
class QAItem:
    """One question asked at one turn of one dialogue.

    Attributes:
        episode_id: the dialogue / conversation id.
        turn: index of the turn (utterance, sentence) after which the question is asked.
        context: the dialogue as the agent sees it for this question.
        question: the question text.
        choices: the answer options, in the dataset's order.
        answer: index of the correct option in ``choices``.
        qtype: the question type (e.g. ``"desire_ee"``, ``"order_2"``).
        role: whose mental state is asked about (e.g. ``"persuadee"``, ``"A"``), or "".
        background: scenario text shown before the dialogue, or "".
        meta: what describes the question without determining its answer (ids, its order, the
            file it came from); goes to the ``info`` returned with it and with its answer.
        after: what reveals the answer (e.g. the published answer letter); returned only after
            the fact, as the answer is (see ``feedback`` in :class:`QAEnv`).
        labels: gold labels that other questions share (e.g. the speakers' beliefs about an
            event); never returned, except as ``next_labels`` with ``expose_labels=True``.
        scored: whether the benchmark scores this question. An unscored one (a *filler*) is asked
            exactly like the others so that the sequence of questions (how many, in which order)
            carries nothing about the scored ones' labels; only the after-the-fact ``answers`` of a
            finished episode say which were scored, and :func:`answered` leaves the fillers out.
    """

    episode_id: str
    turn: int
    context: str
    question: str
    choices: tuple[str, ...]
    answer: int
    qtype: str
    role: str = ""
    background: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, Any] = field(default_factory=dict)
    scored: bool = True

    def __post_init__(self) -> None:
        require_bool("QAItem.scored", self.scored)
        if not self.choices or not 0 <= self.answer < len(self.choices):
            raise TomEnvsError(
                f"QA item {self.episode_id}/{self.turn}: answer {self.answer} is not an index of {len(self.choices)} choices"
            )


def render_question(item: QAItem, choices: Sequence[str] | None = None) -> str:
    """The text an LLM sees: background, dialogue so far, question, lettered options."""
    opts = item.choices if choices is None else choices
    parts = []
    if item.background:
        parts += [BACKGROUND_HEADER, item.background, ""]
    parts += [DIALOGUE_HEADER, item.context or NOTHING_SAID, "", QUESTION_PREFIX + item.question]
    parts += option_lines(opts)
    parts.append(f"Answer with the letter of one option ({', '.join(LETTERS[: len(opts)])}).")
    return "\n".join(parts)


def question_info(info: dict) -> dict:
    """The part of a QA env's ``reset``/``step`` info that describes the question now shown (and
    ``next_labels`` when the env exposes them): what a benchmark hands a policy, so that it sees
    neither the answer of the question just answered nor anything else after the fact."""
    if info.get("describes") == "answered":
        shown = dict(info.get("shown") or {})
        if "next_labels" in info:
            shown["next_labels"] = info["next_labels"]
        return shown
    return dict(info)


def walk(env: Any, seed: int | None, options: dict | None = None) -> tuple[list[dict], list[dict]]:
    """Play one episode of a QA env answering option 0 throughout: ``(observations, step infos)``, one
    observation per question, in asking order. Answers change nothing the env shows, so these are the
    questions any policy would be asked with this seed and these options (what batched answerers and
    exporters read ahead; :func:`answered` then gives what the step infos say after the fact)."""
    obs, _ = env.reset(seed=seed, options=options)
    seen, infos = [obs], []
    while True:
        obs, _, terminated, truncated, info = env.step(0)
        infos.append(info)
        if terminated or truncated:
            return seen, infos
        seen.append(obs)


def answered(infos: Sequence[dict], with_fillers: bool = False) -> list[dict]:
    """Per scored question of one finished episode, in asking order, the info of the step that
    answered it with what is known after the fact (``answer``, ``correct``, ``scored``, the item's
    ``after``), whichever the env's ``feedback``: the last step's ``answers`` (every QA env puts them
    there), or the step infos themselves (infos recorded before ``answers`` existed under
    ``feedback="step"``). What a scorer (never a policy) reads once the episode is over.

    Args:
        infos: the infos of every step of the episode, in order.
        with_fillers: also return the unscored questions (``scored`` False), one entry per step;
            by default they are left out, so that every metric scores the benchmark's questions only.

    Raises:
        TomEnvsError: ``infos`` is not the step infos of one whole episode.
        InvalidFlag: ``with_fillers`` is not a bool.
    """
    with_fillers = require_bool("with_fillers", with_fillers)
    infos = list(infos)
    if not infos:
        raise TomEnvsError("answered() takes the infos of every step of one finished QA episode; got none")
    if infos[-1].get("shown") is not None:  # a step that shows a next question did not end the episode
        raise TomEnvsError(
            "answered() takes the infos of every step of one finished QA episode: the last info "
            "shows a next question (was the episode played to its end?)"
        )
    facts = infos[-1].get("answers")
    if facts is None:
        facts = infos
    if len(facts) != len(infos) or any("correct" not in f for f in facts):
        raise TomEnvsError(
            f"answered() takes the infos of every step of one finished QA episode: got {len(infos)} "
            f"infos, and the episode's answers are {len(facts)} (was the episode played to its end?)"
        )
    return [dict(f) for f in facts if with_fillers or f.get("scored", True)]


#: what every QA env declares public (the information rule's checker, :mod:`tom_envs.checks`)
QA_PUBLIC = (
    "obs.context",
    "obs.question",
    "obs.background",
    "obs.choices",
    "obs.choices[*]",
    "obs.n_choices",
    "obs.qtype",
    "obs.turn",
    "obs.action_mask",
    "obs.action_mask[*]",
    "question.*",
)


class QAEnv(TomEnv):
    """Answer a dialogue's questions turn by turn; one question per step.

    Information rule (docs/architecture.md, contract 4): ``tom_public`` declares what a policy may read as
    the question's public part (the observation's fields and the shown question's description,
    ``question.*``); ``tom_composed`` declares ``text`` as made of the context, question, background and
    options, so that the checker cuts those out of it and reads what is left (the template) as a
    candidate: a hint written anywhere into the text is caught.

    Subclasses pass the episodes (lists of :class:`QAItem` in asking order) and document their
    data; this base handles spaces, stepping, choice shuffling, rewards and errors.

    Observation (``Dict``): ``text`` (the rendered prompt, for LLMs), ``context``, ``question``,
    ``background`` (``Text``), ``choices`` (``Tuple`` of ``Text``, padded with "" up to
    ``max_choices``), ``n_choices``, ``qtype`` (index into :attr:`qtypes`), ``turn``
    (``Discrete``) and ``action_mask`` (``MultiBinary(max_choices)``, 1 for the options shown).
    Action: ``Discrete(max_choices)``, the index of the chosen option as shown. Anything outside
    the action space raises :class:`InvalidAction`; an index inside it but beyond this question's
    options (masked) is answered wrong and flagged ``info["invalid"]`` -- or raises too with
    ``strict=True`` (Gymnasium's checker samples the whole action space, so that is not the
    default).

    Feedback (``feedback``, :data:`FEEDBACK_MODES`). Answers within one dialogue correlate (a
    persuadee's desire rarely changes between turns: 66.5 % of consecutive desire_ee answers of
    the PersuasiveToM release repeat), so the answer of one question, handed back with the next
    one, would give part of that one away. By default (``"episode"``) nothing known after the fact comes
    back before the dialogue's last question is answered: every earlier step returns reward 0.0,
    and the last one returns the number of correct answers of the episode (the same undiscounted
    return as per-question rewards) and every question's answer. ``feedback="step"`` -- the
    documented flag for training with per-question feedback -- returns reward 1.0 for a correct
    answer (else 0.0) and the answer with the step that answered it. Either way the last step also
    carries ``answers`` (every question's after-the-fact description, with ``scored``), which
    :func:`answered` reads (what the benchmarks score).

    Scored questions and fillers (:attr:`QAItem.scored`). A family may ask unscored questions among
    the scored ones so that how many questions come, in which order, cannot encode the scored ones'
    labels (Common-ToM). They are asked, answered and rewarded like any other question (the reward
    covers every question asked, so it does not tell them apart); nothing a policy receives says which
    were scored before the episode ends, when ``answers`` marks each with ``scored``. :func:`answered`,
    ``tom_outcome()`` and ``tom_truth()`` (the scorer's channel, which no policy reads) count the
    scored questions only, so a ToM recorder scores exactly the benchmark's questions.

    Info follows the information rule (:mod:`tom_envs.tom`): what ``reset`` and ``step`` return
    with a question never determines its answer. Every info names what it describes in
    ``describes``. ``reset``'s info (``describes == "shown"``) describes the question shown:
    ``qtype``, ``role``, ``episode_id``, ``turn`` and the item's ``meta``. A ``step``'s info
    (``describes == "answered"``) describes the question just answered: the same keys plus
    ``chosen``, ``invalid`` and ``choice_order`` (shown -> dataset index); its ``shown`` holds the
    reset-style description of the question now shown (None after the last one). What is known
    only after the fact -- ``answer`` (the right option, shown index), ``correct`` and the item's
    ``after`` -- comes with the step that answered the question under ``feedback="step"``; by
    default only the episode's last step carries it (for its own question); under either feedback
    the last step carries ``answers``: the after-the-fact description of every question of the
    episode, in order, each with ``scored``.
    :func:`question_info` is what a policy answering the shown question may read. Gold labels that
    later questions share (the item's ``labels``) are never returned. ``expose_labels=True`` --
    for oracle baselines only -- adds ``next_labels`` to every info that comes with a question:
    ``answer`` (shown index) and the ``labels`` of the question now shown.

    ToM contract: ``tom_spec`` has the one target ``answer`` (``Discrete(max_choices)``); the
    action is the prediction; ``group_by="qtype"``. ``tom_truth()`` is ``{"answer": i}`` for the
    scored question just answered (``{}`` after a filler); ``tom_outcome()`` the accuracy so far over the
    scored questions (``accuracy``, ``answered``, ``correct``). :attr:`current_answer` and :attr:`current_item` give the ground truth of the
    question now asked to scorers and tests; nothing returned by ``reset``/``step`` does. With
    ``feedback="episode"`` the spec's ``reveal`` is ``"episode"`` (the env's own info returns no answer
    before the end; the recorders never return records before it, whatever the feedback).

    Args:
        episodes: the dialogues, each a non-empty list of items.
        qtypes: every question type the env can ask (fixes the ``qtype`` space).
        shuffle_choices: present the options in a seeded random order (against letter bias).
        strict: raise :class:`InvalidAction` for a masked option instead of scoring it wrong.
        (``shuffle_choices``, ``strict`` and ``expose_labels`` take a bool only: anything else,
        e.g. the string ``"false"``, raises :class:`~tom_envs.errors.InvalidFlag`.)
        render_mode: ``"ansi"`` returns the current prompt from ``render()``.
        expose_labels: return ``next_labels`` (the answer and gold labels of the question now
            shown) with every question: the documented flag for oracle baselines; default False.
        feedback: ``"episode"`` (default) or ``"step"``: when answers and rewards come back (above).
        option_slots: at least this many option slots (actions), beyond the longest question's options;
            the extra slots are masked, so an answer there is scored wrong (e.g. 6, letters A-F, for a
            protocol whose answerer may name any of them, as PersuasiveToM's authors' script does).

    Raises:
        TomEnvsError: no episodes, an empty episode, an unknown question type or feedback mode.
        InvalidFlag: a flag that is not a bool.
    """

    metadata = {"render_modes": ["ansi"]}
    #: the keys ``reset(options=...)`` reads (another key is :class:`~tom_envs.errors.InvalidOptions`)
    reset_options: tuple[str, ...] = ("episode",)
    episode_over = "the dialogue's questions are all answered; call env.reset() for the next one."

    #: the text a language model reads, made of these public fields (and a template)
    tom_composed = {"obs.text": ("obs.context", "obs.question", "obs.background", "obs.choices[*]")}
    #: observation fields a subclass adds, public too
    extra_public: tuple[str, ...] = ()

    def __init__(
        self,
        episodes: Sequence[Sequence[QAItem]],
        qtypes: Sequence[str],
        shuffle_choices: bool = False,
        strict: bool = False,
        render_mode: str | None = None,
        expose_labels: bool = False,
        feedback: str = "episode",
        option_slots: int | None = None,
    ) -> None:
        if option_slots is not None and (
            isinstance(option_slots, bool) or not isinstance(option_slots, int) or not 1 <= option_slots <= len(LETTERS)
        ):
            raise TomEnvsError(f"option_slots must be an int in 1..{len(LETTERS)} (or None), got {option_slots!r}")
        shuffle_choices = require_bool("shuffle_choices", shuffle_choices)
        strict = require_bool("strict", strict)
        expose_labels = require_bool("expose_labels", expose_labels)
        if feedback not in FEEDBACK_MODES:
            raise TomEnvsError(
                f"feedback must be one of {FEEDBACK_MODES} ('episode': answers and rewards come back "
                f"when the dialogue ends; 'step': with each answer), got {feedback!r}"
            )
        if not episodes or any(len(ep) == 0 for ep in episodes):
            raise TomEnvsError("a QA env needs at least one episode, and every episode at least one question")
        self.check_render_mode(render_mode)
        self.episodes = [list(ep) for ep in episodes]
        self.qtypes = list(qtypes)
        unknown = {it.qtype for ep in self.episodes for it in ep} - set(self.qtypes)
        if unknown:
            raise TomEnvsError(f"items have question types {sorted(unknown)} not in qtypes {self.qtypes}")
        self.shuffle_choices = shuffle_choices
        self.expose_labels = expose_labels
        self.feedback = feedback
        self.strict = strict
        self.render_mode = render_mode
        self.max_choices = max(option_slots or 0, *(len(it.choices) for ep in self.episodes for it in ep))
        texts = [render_question(it) for ep in self.episodes for it in ep]
        chars = set(string.printable) | {c for t in texts for c in t}
        charset = frozenset(chars)
        longest = max(len(t) for t in texts) + 64
        text = lambda: spaces.Text(max_length=longest, min_length=0, charset=charset)  # noqa: E731
        max_turn = max(it.turn for ep in self.episodes for it in ep)
        self.observation_space = spaces.Dict(
            {
                "text": text(),
                "context": text(),
                "question": text(),
                "background": text(),
                "choices": spaces.Tuple([text() for _ in range(self.max_choices)]),
                "n_choices": spaces.Discrete(self.max_choices + 1),
                "qtype": spaces.Discrete(len(self.qtypes)),
                "turn": spaces.Discrete(max_turn + 1),
                "action_mask": spaces.MultiBinary(self.max_choices),
            }
        )
        self.action_space = spaces.Discrete(self.max_choices)
        self.tom_public = QA_PUBLIC + tuple(f"obs.{k}" for k in self.extra_public)
        self.tom_spec = ToMSpec(
            targets={"answer": spaces.Discrete(self.max_choices)},
            outcome=("accuracy", "answered", "correct"),
            action_is_prediction=True,
            group_by="qtype",
            reveal=feedback,
        )
        self._episode: list[QAItem] = []
        self._i = 0
        self._order: list[int] = []
        self._resolved: dict[str, int] = {}
        self._answered = self._n_correct = 0
        self._scored_answered = self._scored_correct = 0
        self._facts: list[dict[str, Any]] = []  # the episode's after-the-fact descriptions so far
        self._extend_spaces()

    def _extend_spaces(self) -> None:
        """A subclass's own spaces, once the base's are set (Text sizes for its prompt, fields it adds)."""

    # ------------------------------------------------------------------ episode selection
    def select_episode(self, options: dict | None) -> int:
        """Index of the episode to play; ``options={"episode": i}`` picks one, else a seeded draw."""
        if options and "episode" in options:
            i = options["episode"]
            if not isinstance(i, (int, np.integer)) or not 0 <= i < len(self.episodes):
                raise TomEnvsError(f"options['episode'] must be an index in 0..{len(self.episodes) - 1}, got {i!r}")
            return int(i)
        return int(self.np_random.integers(len(self.episodes)))

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = self.read_options(options)
        self._episode = self.episodes[self.select_episode(options)]
        self._i = 0
        self.start_episode()
        self._resolved = {}
        self._answered = self._n_correct = 0
        self._scored_answered = self._scored_correct = 0
        self._facts = []
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        self.check_step()
        item = self._episode[self._i]
        n = len(item.choices)
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            and not (isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu")
        ):
            raise InvalidAction(f"the action is the index of an option (an integer in 0..{n - 1}), got {action!r}")
        a = int(action)
        if not 0 <= a < self.max_choices or (self.strict and a >= n):
            raise InvalidAction(f"this question has {n} options; pick an index in 0..{n - 1}, got {a}")
        shown = self._order.index(item.answer)
        correct = a == shown
        info = {
            **self._info(item),
            "describes": "answered",
            "chosen": a,
            "invalid": a >= n,
            "choice_order": list(self._order),
        }
        fact = {**info, "answer": shown, "correct": correct, **item.after}
        self._facts.append({**fact, "scored": item.scored})  # which were scored: told when the episode ends
        self._resolved = {"answer": shown} if item.scored else {}  # the scorer's channel: a filler resolves nothing
        self._answered += 1
        self._n_correct += correct
        self._scored_answered += item.scored
        self._scored_correct += correct and item.scored
        self._i += 1
        self._done = terminated = self._i >= len(self._episode)
        if self.feedback == "step":
            info, reward = dict(fact), float(correct)
        elif terminated:
            info, reward = dict(fact), float(self._n_correct)
        else:
            reward = 0.0
        if terminated:
            info["answers"] = [dict(f) for f in self._facts]
        if terminated:
            info["shown"] = None
            return self._blank(), reward, True, False, info
        obs, shown_info = self._observe()
        info["shown"] = {k: v for k, v in shown_info.items() if k not in ("describes", "next_labels")}
        if "next_labels" in shown_info:
            info["next_labels"] = shown_info["next_labels"]
        return obs, reward, False, False, info

    def render_text(self) -> str:
        if not self.running:
            return ""
        item = self._episode[self._i]
        return render_question(item, [item.choices[j] for j in self._order])

    def tom_truth(self) -> dict[str, Any]:
        """``{"answer": i}``: the shown index of the right option of the question just answered."""
        return dict(self._resolved)

    def tom_outcome(self) -> dict[str, Any]:
        """Accuracy (%) over the scored questions answered so far in this episode, and the counts
        (fillers, :attr:`QAItem.scored` False, are not counted; the reward counts them)."""
        n, hits = self._scored_answered, self._scored_correct
        return {"accuracy": 100.0 * hits / n if n else None, "answered": n, "correct": hits}

    @property
    def current_answer(self) -> int | None:
        """The shown index of the right option of the question now asked (ground truth, never returned)."""
        item = self.current_item
        return None if item is None else self._order.index(item.answer)

    @property
    def current_item(self) -> QAItem | None:
        """The question now being asked (ground truth; not part of the observation)."""
        return self._episode[self._i] if self.running else None

    # ------------------------------------------------------------------ helpers
    def _observe(self) -> tuple[dict, dict]:
        item = self._episode[self._i]
        n = len(item.choices)
        self._order = list(self.np_random.permutation(n)) if self.shuffle_choices else list(range(n))
        self._order = [int(j) for j in self._order]
        shown = [item.choices[j] for j in self._order]
        obs = {
            "text": render_question(item, shown),
            "context": item.context,
            "question": item.question,
            "background": item.background,
            "choices": tuple(shown + [""] * (self.max_choices - n)),
            "n_choices": n,
            "qtype": self.qtypes.index(item.qtype),
            "turn": item.turn,
            "action_mask": np.array([1] * n + [0] * (self.max_choices - n), dtype=np.int8),
        }
        info = {**self._info(item), "describes": "shown"}
        if self.expose_labels:
            info["next_labels"] = {"answer": self._order.index(item.answer), **item.labels}
        return obs, info

    def _info(self, item: QAItem) -> dict[str, Any]:
        """What describes a question without determining its answer."""
        return {"qtype": item.qtype, "role": item.role, "episode_id": item.episode_id, "turn": item.turn, **item.meta}

    def _blank(self) -> dict:
        return {
            "text": "",
            "context": "",
            "question": "",
            "background": "",
            "choices": tuple([""] * self.max_choices),
            "n_choices": 0,
            "qtype": 0,
            "turn": 0,
            "action_mask": np.zeros(self.max_choices, dtype=np.int8),
        }


@dataclass(frozen=True)
class QAPrompts:
    """The texts of a QA protocol's chat messages (e.g. PersuasiveToM's authors' protocol,
    :mod:`tom_envs.persuasion.prompts`, which reads them from the release or gives its own).

    Attributes:
        system: mode -> system message.
        user: mode -> format template of the user message up to the options, with the fields
            ``{preamble}``, ``{dialogue}`` and ``{question}`` (literal braces doubled).
        preamble: the CoT preamble (``{preamble}``; "" when unused).
        option_line: format template of one option, fields ``{letter}`` and ``{choice}``; the
            lines follow one another with nothing between them.
        answer_cue: mode -> the text that ends the user message.
        source: where the texts come from, e.g. ``"release"``, ``"file"`` or ``"ours"``.
        path: the file read, or None.
    """

    system: Mapping[str, str]
    user: Mapping[str, str]
    preamble: str
    option_line: str
    answer_cue: Mapping[str, str]
    source: str = "ours"
    path: str | None = field(default=None, compare=False)

    def texts(self) -> dict[str, Any]:
        """The prompt texts as plain JSON data (no source, no path)."""
        return {
            "system": dict(self.system),
            "user": dict(self.user),
            "preamble": self.preamble,
            "option_line": self.option_line,
            "answer_cue": dict(self.answer_cue),
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`texts` (canonical JSON): names the prompts without their text."""
        return hashlib.sha256(json.dumps(self.texts(), sort_keys=True).encode("utf-8")).hexdigest()

    def user_message(self, mode: str, dialogue: str, question: str, choices: list[str], letters: str) -> str:
        """The user message: the template's fields filled, one line per option, the answer cue."""
        head = self.user[mode].format(preamble=self.preamble, dialogue=dialogue, question=question)
        lines = "".join(self.option_line.format(letter=letters[i], choice=c) for i, c in enumerate(choices))
        return head + lines + self.answer_cue[mode]

    @classmethod
    def from_texts(cls, texts: Mapping[str, Any], source: str, path: str | None = None) -> "QAPrompts":
        """The inverse of :meth:`texts`."""
        return cls(
            dict(texts["system"]),
            dict(texts["user"]),
            str(texts["preamble"]),
            str(texts["option_line"]),
            dict(texts["answer_cue"]),
            source,
            path,
        )
