"""``tom/CommonToM-v1``: Common-ToM's belief questions asked sentence by sentence (seed 003)."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from tom_envs.common_ground.corpus import MARKER, QuestionRow, read_corpus, read_questions, scan, split_cids, pick_annotator
from tom_envs.common_ground.questions import DEFAULT_KEEP_FRACTION, DEFAULT_SAMPLE_SEED, generate_questions, parse_question
from tom_envs.errors import DatasetError, TomEnvsError
from tom_envs.qa import QUESTION_PREFIX, QAEnv, QAItem

CONTEXT_MODES = ("online", "window", "full")
QTYPES = ("order_1", "order_2", "order_3")
CHOICES = ("No", "Yes")
WINDOW = 5
GOLD_LABELS = ("belief_A", "belief_B", "cg_A", "cg_B")


class CommonToMEnv(QAEnv):
    """Answer Common-ToM's yes/no belief questions while a conversation unfolds (seed 003).

    An episode is one conversation of the common-ground corpus (CALLHOME telephone calls between
    speakers A and B), stepped sentence by sentence: at each sentence that is a time point of some
    event, that sentence's questions are asked, one per env step ("At the time indicated by 🛑, is
    it the case that A believes that B believes it is possibly true that <event>?"). Questions come
    from the released question files, or are generated from the corpus with ``from_corpus=True``
    (the rules of :mod:`tom_envs.common_ground.questions`).

    ## Action Space
    ``Discrete(2)``: 0 = no, 1 = yes.

    ## Observation Space
    The :class:`~tom_envs.qa.QAEnv` ``Dict``: ``text`` (the prompt for an LLM: dialogue, question
    and "answer yes or no"), ``context`` (the dialogue per ``context``, the current sentence marked
    with 🛑), ``question``, ``background`` (empty), ``choices`` (``("No", "Yes")``),
    ``n_choices`` (2), ``qtype`` (index of ``order_1``/``order_2``/``order_3``), ``turn`` (the
    sentence number) and ``action_mask`` (both ones). Labels and answers never appear in it.

    ## Rewards
    The number of correct answers of the conversation, with its last step; 0.0 with every earlier step
    (``feedback="episode"``, the default: answers of one conversation are not independent, so
    per-question feedback could give later answers away). With ``feedback="step"``: 1.0 for a correct answer,
    0.0 otherwise, with each step. The undiscounted return is the same either way.

    ## Episode End
    Terminates after the conversation's last question; never truncated. Stepping after the end
    raises :class:`~tom_envs.errors.EpisodeEnded`, before the first reset
    :class:`~tom_envs.errors.ResetNeeded`.

    ## Arguments
    * ``data_dir``: a folder laid out like the published repository's ``data/`` (``cg/`` and
      ``questions/``); default: the small sample bundled with tom-envs (written by us, same format).
    * ``split``: ``"test"`` (conversation 4431, default), ``"train"`` (4245, 4248, 4310), ``"all"``,
      or a list of conversation ids.
    * ``context``: ``"online"`` (the dialogue up to the current sentence; default), ``"window"``
      (five sentences before and after it, as 003's prompts) or ``"full"`` (the released context).
    * ``from_corpus``: generate the questions from ``cg/`` instead of reading ``questions/``.
    * ``annotator``: whose annotation (default: the only one present, else ``"Magda"``).
    * ``keep_fraction``, ``sample_seed``: down-sampling of the uninformative label groups when
      generating (defaults 0.1 and 42, as released).
    * ``expose_labels``: return ``next_labels`` with every question -- its ``answer`` and the
      gold labels ``belief_A``, ``belief_B``, ``cg_A``, ``cg_B`` of the question now shown (the
      one documented way for the oracle baseline ``oracle-beliefs``; default False).
    * ``feedback``: ``"episode"`` (default) -- answers and rewards come back with the conversation's
      last step only; ``"step"`` -- with each answer (training with per-question feedback). See
      :class:`~tom_envs.qa.QAEnv`.
    * ``render_mode``: ``"ansi"`` returns the current prompt from ``render()``.

    ## Info
    Nothing returned with a question determines its answer (the information rule,
    :mod:`tom_envs.tom`). ``reset`` describes the question shown: ``order``, ``chain`` (e.g.
    ``"B>A"``), ``belief_Q`` (the certainty asked about), ``cid``, ``sno``, ``eno``,
    ``annotator``, plus :class:`~tom_envs.qa.QAEnv`'s ``qtype``, ``role``, ``episode_id``,
    ``turn``. A ``step`` describes the question just answered: the same keys plus
    ``choice_order``, ``chosen`` and ``invalid``; after the fact -- with the conversation's last
    step (``answers``: one such description per question, in order), or with each step under
    ``feedback="step"`` -- also ``answer`` (1 = yes), ``answer_label`` (``"Yes"``/``"No"``) and
    ``correct``. Questions about one event are asked together and share its gold labels, so
    their answers are not independent: none comes back before the conversation ends. The
    speakers' gold labels (``belief_A``, ``belief_B``, ``cg_A``, ``cg_B``) are shared by every
    question about the same event and sentence, so they are never returned
    (except in ``next_labels`` with ``expose_labels=True``). ``reset(options={"cid": 4431})``
    plays a given conversation (``{"episode": i}`` works too).

    ## ToM contract
    Target ``answer`` (the action is the prediction), broken down by ``qtype``; ``tom_truth()``
    the right answer of the question just answered; ``tom_outcome()`` the accuracy so far (see
    :class:`~tom_envs.qa.QAEnv`). Text for LLMs: ``obs["text"]``.

    ## Version History
    * v0: initial version (question rules of issue 6; released and generated question files).
      Later on v0: the answer and the gold labels of a question are no longer in the info
      returned with it or with the questions after it (the information rule).
    * v1: answers and rewards come back when the conversation ends (``feedback="episode"``);
      v0's behaviour is ``feedback="step"``; v0 is no longer registered.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        data_dir: str | Path | None = None,
        split: str | Sequence[int] = "test",
        context: str = "online",
        from_corpus: bool = False,
        annotator: str | None = None,
        keep_fraction: float = DEFAULT_KEEP_FRACTION,
        sample_seed: int = DEFAULT_SAMPLE_SEED,
        expose_labels: bool = False,
        render_mode: str | None = None,
        feedback: str = "episode",
    ) -> None:
        if context not in CONTEXT_MODES:
            raise TomEnvsError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
        self.data_dir = data_dir
        self.split = split if isinstance(split, str) else [int(c) for c in split]
        self.context_mode = context
        self.from_corpus = bool(from_corpus)
        questions = load_split(data_dir, split, from_corpus, annotator, keep_fraction, sample_seed)
        self.cids = sorted(questions)
        episodes = [[make_item(r, context) for r in questions[cid]] for cid in self.cids]
        super().__init__(episodes, QTYPES, shuffle_choices=False, strict=False, render_mode=render_mode,
                         expose_labels=expose_labels, feedback=feedback)
        self._widen_text_spaces()

    # ------------------------------------------------------------------ prompts
    def _widen_text_spaces(self) -> None:
        """Size the Text spaces for this env's own prompt (yes/no wording instead of lettered options)."""
        texts = [render_prompt(it) for ep in self.episodes for it in ep]
        base = self.observation_space["text"]
        charset = frozenset(set(base.character_set) | {c for t in texts for c in t} | set(string.printable))
        longest = max(base.max_length, max(len(t) for t in texts) + 64)
        new = {k: (spaces.Text(max_length=longest, min_length=0, charset=charset) if isinstance(v, spaces.Text) else v)
               for k, v in self.observation_space.spaces.items()}
        new["choices"] = spaces.Tuple([spaces.Text(max_length=longest, min_length=0, charset=charset) for _ in CHOICES])
        self.observation_space = spaces.Dict(new)

    def _observe(self) -> tuple[dict, dict]:
        obs, info = super()._observe()
        obs["text"] = render_prompt(self._episode[self._i])
        return obs, info

    def render(self) -> str | None:
        text = super().render()
        item = self.current_item
        return render_prompt(item) if text and item is not None else text

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start a conversation; its questions come sentence by sentence, shuffled within each sentence.

        The released files list a sentence's questions by label group, so their order alone would tell
        the down-sampled uninformative groups apart (issue 13); the order is drawn from the env's
        ``np_random`` (the same seed gives the same order).
        """
        super().reset(seed=seed, options=options)
        self._episode = shuffle_within_sentences(self._episode, self.np_random)
        return self._observe()

    def select_episode(self, options: dict | None) -> int:
        """``options={"cid": 4431}`` plays that conversation; otherwise as :class:`QAEnv`."""
        if options and "cid" in options:
            cid = options["cid"]
            if cid not in self.cids:
                raise TomEnvsError(f"options['cid'] must be one of this env's conversations {self.cids}, got {cid!r}")
            return self.cids.index(cid)
        return super().select_episode(options)


def shuffle_within_sentences(items: Sequence[QAItem], rng: np.random.Generator) -> list[QAItem]:
    """The items in the same sentence order, each sentence's items in a random order drawn from ``rng``."""
    out: list[QAItem] = []
    start = 0
    while start < len(items):
        end = start
        while end < len(items) and items[end].turn == items[start].turn:
            end += 1
        block = list(items[start:end])
        out += [block[i] for i in rng.permutation(len(block))]
        start = end
    return out


def render_prompt(item: QAItem) -> str:
    """The text an LLM sees: the conversation (marked), the question and how to answer."""
    return "\n".join(["Conversation:", item.context, "", QUESTION_PREFIX + item.question,
                      "Answer yes or no (action 1 = yes, 0 = no)."])


def make_item(row: QuestionRow, context: str = "online") -> QAItem:
    """A :class:`QAItem` for one question row, with the context cut per ``context`` mode."""
    parsed = parse_question(row.question)
    chain = ">".join(parsed.chain)
    meta = {"order": row.order, "chain": chain, "belief_Q": row.belief_Q, "cid": row.cid, "sno": row.sno,
            "eno": row.eno, "annotator": row.annotator}
    labels = {"belief_A": row.belief_A, "belief_B": row.belief_B, "cg_A": row.cg_A, "cg_B": row.cg_B}
    return QAItem(episode_id=str(row.cid), turn=row.sno, context=cut_context(row.context, context),
                  question=row.question, choices=CHOICES, answer=1 if row.answer == "Yes" else 0,
                  qtype=f"order_{row.order}", role=chain, meta=meta, after={"answer_label": row.answer}, labels=labels)


def cut_context(full: str, mode: str) -> str:
    """The part of a released context (one sentence a line, one marked) that mode ``mode`` shows."""
    lines = full.split("\n")
    at = next(i for i, line in enumerate(lines) if MARKER in line)
    if mode == "online":
        return "\n".join(lines[: at + 1])
    if mode == "window":
        return "\n".join(lines[max(0, at - WINDOW): at + WINDOW + 1])
    return full


def load_split(data_dir: str | Path | None, split: str | Sequence[int], from_corpus: bool = False,
               annotator: str | None = None, keep_fraction: float = DEFAULT_KEEP_FRACTION,
               sample_seed: int = DEFAULT_SAMPLE_SEED) -> dict[int, list[QuestionRow]]:
    """Conversation id -> its questions in asking order (by sentence, then file order).

    Raises:
        DatasetError: the data folder lacks the needed files, or a file is malformed.
    """
    folder = scan(data_dir)
    files = folder.corpus if from_corpus else folder.questions
    if not files:
        where = "cg/<cid>_<annotator>_....tsv" if from_corpus else "questions/<cid>_<annotator>_yn_questions.csv.gz"
        hint = "" if from_corpus else " (or pass from_corpus=True to generate them from cg/)"
        raise DatasetError(f"{folder.root}: no {where} files{hint}")
    out: dict[int, list[QuestionRow]] = {}
    for cid in split_cids(split, (c for c, _ in files)):
        path = pick_annotator(files, cid, annotator)
        rows = generate_questions(read_corpus(path), keep_fraction, sample_seed) if from_corpus else read_questions(path)
        rows = sorted(rows, key=lambda r: r.sno)  # stable: file order within a sentence
        if rows:
            out[cid] = rows
    if not out:
        raise DatasetError(f"{folder.root}: split {split!r} has no questions at all")
    return out
