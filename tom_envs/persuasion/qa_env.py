"""PersuasiveToM as a turn-by-turn question-answering environment (seed 001)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from gymnasium import spaces

from tom_envs.errors import DatasetError, require_bool
from tom_envs.persuasion import QTYPES
from tom_envs.persuasion.data import (
    ROLES,
    Question,
    dialogues,
    is_bundled_sample,
    load_checked_dataset,
    repeated_options,
    split_dialogues,
)
from tom_envs.qa import QAEnv, QAItem

#: Short descriptions of what each question type asks, used in the text prompt.
TOPICS: dict[str, str] = {
    "desire_er": "what the persuader wants",
    "belief_er": "what the persuader thinks of the persuadee's attitude",
    "intent_er": "the intention behind the persuader's last utterance",
    "desire_ee": "what the persuadee wants",
    "belief_ee": "what the persuadee thinks of the persuader's attitude",
    "intent_ee": "the intention behind the persuadee's last reply",
    "behavior_qa": "which strategy the persuader will use next",
    "judge_qa": "whether a persuasion strategy will work",
}
ROLE_NAMES = ("persuader", "persuadee")
_PREAMBLE = (
    "Two people talk: a persuader tries to bring a persuadee round to something. "
    "This question is about {topic} ({role}).\n\n"
)
_LONGEST_PREAMBLE = max(len(_PREAMBLE.format(topic=t, role=r)) for t in TOPICS.values() for r in ROLE_NAMES)


def build_episodes(data: dict[str, list[Question]], split: "str | Sequence[str]" = "all") -> list[list[QAItem]]:
    """One episode per dialogue of the split: its questions turn by turn, Table 5's order within a turn."""
    grouped = dialogues(data)
    return [[_item(q) for turn in grouped[key].values() for q in turn] for key in split_dialogues(list(grouped), split)]


def _item(q: Question) -> QAItem:
    r = q.record
    return QAItem(
        episode_id=r.dialogue_key,
        turn=r.turn,
        context=r.dialogue.rstrip("\n"),
        question=r.question,
        choices=tuple(r.choices),
        answer=r.answer_index,
        qtype=q.qtype,
        role=ROLES[q.qtype],
        background=r.background,
        meta={"dialogue_id": r.dialogue_id, "source": Path(q.source).name, "record": q.index},
        after={"answer_key": r.answerKey},
    )


class PersuasiveToMEnv(QAEnv):
    """Answer PersuasiveToM's questions over one persuasion dialogue, turn by turn (seed 001).

    An episode is one dialogue. At each turn (the ``<turn>`` of ``dialogue_id``) the agent answers
    that turn's questions, one env step each, in the column order of 001's Table 5: persuader
    desire, belief, intention; persuadee desire, belief, intention; strategy prediction; strategy
    judgement. The dialogue shown is the record's own ``dialogue`` field (the conversation up to
    that turn), so nothing said later leaks into an earlier question.

    ## Action Space
    ``Discrete(max_choices)`` (6 with the persuader-intention file): the index of the chosen
    option as shown. Indices beyond this question's options are masked in ``action_mask``; they
    count as wrong and set ``info["invalid"]`` (or raise
    :class:`~tom_envs.errors.InvalidAction` with ``strict=True``). Anything outside the space
    raises :class:`~tom_envs.errors.InvalidAction`.

    ## Observation Space
    ``Dict`` of :class:`tom_envs.qa.QAEnv` -- ``text`` (the full prompt for LLMs: a line naming
    the question's topic and role, background, dialogue so far, question, lettered options),
    ``context``, ``question``, ``background``, ``choices`` (padded), ``n_choices``, ``qtype``
    (index into :attr:`qtypes`), ``turn``, ``action_mask`` -- plus ``role`` (``Discrete(2)``:
    0 persuader, 1 persuadee).

    ## Rewards
    The number of correct answers of the dialogue, with its last step; 0.0 with every earlier step
    (``feedback="episode"``, the default: answers of one dialogue correlate, so per-question
    feedback would give later answers away). With ``feedback="step"``: 1.0 for a correct answer,
    0.0 otherwise, with each step. The undiscounted return is the same either way.

    ## Episode End
    Terminates after the dialogue's last question; never truncated. ``step`` before ``reset``
    raises :class:`~tom_envs.errors.ResetNeeded`, after the end
    :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``data_dir``: folder holding any subset of the eight published files (``desire_er.json``
      ... ``judge_qa.json``); default: the small sample bundled with tom-envs. Get the real files
      with ``tom-envs data download persuasion --out DIR``.
    * ``qtypes``: the question types to ask, a list or a comma-separated string (default: every
      file present). The public release's verified files are desire_ee, intent_ee, behavior_qa and
      judge_qa; the other four types are an extension point for users who have those files
      (:data:`tom_envs.persuasion.data.RELEASE_UNVERIFIED`).
    * ``split``: ``"all"`` (default), ``"dev"`` (every fifth dialogue), ``"test"`` (the rest) or a
      list of dialogue ids.
    * ``shuffle_choices``: show the options in a seeded random order (default True, as 001 does
      against letter bias).
    * ``strict``: raise on masked options instead of scoring them wrong, and (with ``qtypes=None``)
      on any of the eight files missing from ``data_dir``.
    * ``render_mode``: ``"ansi"`` -- ``render()`` returns the current prompt.
    * ``expose_labels``: return the answer of the question now shown as
      ``info["next_labels"]["answer"]`` (oracle baselines and probes only; default False).
    * ``feedback``: ``"episode"`` (default) -- answers and rewards come back with the dialogue's
      last step only; ``"step"`` -- with each answer (training with per-question feedback). See
      :class:`~tom_envs.qa.QAEnv`.
    * ``option_slots``: at least this many option slots (the benchmark's ``--protocol authors``
      passes 6: the authors' script reads any letter A-F and scores one beyond the options wrong).
    * ``allow_partial``: with ``qtypes=None``, use the files present, and use files under the release's
      verified names whose record count or sha256 is not the release's
      (:data:`~tom_envs.persuasion.data.RELEASE_FILES`), listed in :attr:`release_differences`
      (``partial`` is then True). Default True, a folder of one's own. False needs the release's four
      verified files (:class:`~tom_envs.persuasion.data.IncompleteRelease` names the missing ones) and
      their content (:class:`~tom_envs.release_files.ReleaseMismatch` names a file that differs): what
      ``python -m benchmarks persuasion`` asks unless ``--allow-partial``. Sample folders (the bundled
      one, folders holding ``SAMPLE.md``) are not checked.

    ## Info
    Nothing returned with a question determines its answer (the information rule,
    :mod:`tom_envs.tom`); every info names what it describes (``describes``). ``reset``
    (``describes == "shown"``): ``qtype`` (published file name), ``role``, ``episode_id``
    (dialogue), ``turn``, ``dialogue_id``, ``source`` (file name), ``record`` (index in the file)
    of the question shown. A ``step`` (``describes == "answered"``) describes the question just
    answered: the same keys plus ``choice_order`` (shown -> published index), ``chosen`` and
    ``invalid``; its ``shown`` is the reset-style description of the question now shown (None at
    the end). After the fact -- with the dialogue's last step (``answers``: one such description
    per question, in order), or with each step under ``feedback="step"`` -- also ``answer`` (the
    right option, shown index), ``answer_key`` (published letter) and ``correct``.
    :func:`tom_envs.qa.question_info` is what a policy may read; the benchmark hands it nothing
    else.
    ``reset(options={"episode": i})`` plays dialogue ``i`` of :attr:`episodes`; otherwise a
    seeded draw.

    ## ToM contract
    Target ``answer`` (the action is the prediction), broken down by ``qtype``; ``tom_truth()``
    the right option of the question just answered; ``tom_outcome()`` the accuracy so far (see
    :class:`~tom_envs.qa.QAEnv`). Text for LLMs: ``obs["text"]``.

    ## Version History
    * v0: initial version. Later on v0: the answer and answer letter of a question are no longer
      in the info returned with it (only in the step that answers it); infos name what they
      describe (``describes``, ``shown``); bad files are named errors (duplicate ``dialogue_id``,
      empty question, one option, a folder for a file).
    * v1: answers, answer letters and rewards come back when the dialogue ends
      (``feedback="episode"``): on the release, a probe reading the answer handed back with the
      question before answered 65.6 % of held-out desire_ee questions, 2.4 points above the same
      probe reading the question alone (63.3 %, the data's own prior); under v1 it reads nothing
      more than the question (63.3 %). v0's behaviour is ``feedback="step"``; v0 is no longer
      registered.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        data_dir: str | Path | None = None,
        qtypes: Iterable[str] | None = None,
        split: "str | Sequence[str]" = "all",
        shuffle_choices: bool = True,
        strict: bool = False,
        render_mode: str | None = None,
        expose_labels: bool = False,
        feedback: str = "episode",
        allow_partial: bool = True,
        option_slots: int | None = None,
    ) -> None:
        data, differences = load_checked_dataset(
            data_dir,
            qtypes if qtypes is None or isinstance(qtypes, str) else list(qtypes),
            require_all=strict,
            allow_partial=require_bool("allow_partial", allow_partial),
        )
        if not any(data.values()):
            raise DatasetError(f"{data_dir}: the question files hold no records")
        self.data_dir = data_dir
        #: Per question type whose file carries the release's name but not its content (``allow_partial``):
        #: how it differs. Empty for the release, the bundled sample and files of types not verified.
        self.release_differences: dict[str, str] = differences
        #: Whether the data is a sample folder (the bundled one, or one holding ``SAMPLE.md``): not checked.
        self.is_sample = is_bundled_sample(data_dir)
        self.split = split
        #: Per type, the questions whose options repeat (kept as published; a quirk of the release).
        self.repeated_options = repeated_options(data)
        super().__init__(
            build_episodes(data, split),
            QTYPES,
            shuffle_choices=shuffle_choices,
            strict=strict,
            render_mode=render_mode,
            expose_labels=expose_labels,
            feedback=feedback,
            option_slots=option_slots,
        )

    extra_public = ("role",)  # the information rule: the role asked about is public

    @property
    def partial(self) -> bool:
        """Whether some file loaded is not the release's although it carries its name (:attr:`release_differences`)."""
        return bool(self.release_differences)

    def _extend_spaces(self) -> None:
        """Room for the preamble line in ``text`` (the base sizes it for the bare prompt), and the role."""
        old = self.observation_space["text"]
        charset = old.character_set | set(_PREAMBLE) | {c for t in TOPICS.values() for c in t}
        self.observation_space.spaces["text"] = spaces.Text(
            max_length=old.max_length + _LONGEST_PREAMBLE, min_length=0, charset=frozenset(charset)
        )
        self.observation_space = spaces.Dict({**self.observation_space.spaces, "role": spaces.Discrete(2)})

    def _observe(self) -> tuple[dict, dict]:
        obs, info = super()._observe()
        item = self._episode[self._i]
        obs["text"] = _PREAMBLE.format(topic=TOPICS[item.qtype], role=item.role) + obs["text"]
        obs["role"] = ROLE_NAMES.index(item.role)
        return obs, info

    def _blank(self) -> dict:
        return {**super()._blank(), "role": 0}

    def render_text(self) -> str:
        text = super().render_text()
        item = self.current_item
        if not text or item is None:
            return text
        return _PREAMBLE.format(topic=TOPICS[item.qtype], role=item.role) + text

    @property
    def n_questions(self) -> int:
        """Number of questions over all dialogues of the split."""
        return sum(len(ep) for ep in self.episodes)


def choice_counts(env: PersuasiveToMEnv) -> dict[str, list[int]]:
    """Number of options of every question, per type (for chance-level checks)."""
    out: dict[str, list[int]] = {}
    for ep in env.episodes:
        for it in ep:
            out.setdefault(it.qtype, []).append(len(it.choices))
    return out


__all__ = ["PersuasiveToMEnv", "build_episodes", "choice_counts"]
