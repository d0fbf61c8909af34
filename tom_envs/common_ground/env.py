"""``tom/CommonToM-v2``: Common-ToM's belief questions asked sentence by sentence (seed 003)."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from tom_envs.common_ground.corpus import (
    MARKER,
    QuestionRow,
    UnknownConversation,
    check_file,
    is_bundled_sample,
    missing_conversations,
    pick_annotator,
    read_corpus,
    read_questions,
    scan,
    split_cids,
)
from tom_envs.common_ground.questions import (
    DEFAULT_KEEP_FRACTION,
    DEFAULT_SAMPLE_SEED,
    all_questions,
    check_question_rows,
    generate_questions,
    parse_question,
    with_fillers,
)
from tom_envs.errors import DatasetError, TomEnvsError, require_bool
from tom_envs.qa import QUESTION_PREFIX, QAEnv, QAItem

CONTEXT_MODES = ("online", "window", "full")
QTYPES = ("order_1", "order_2", "order_3")
CHOICES = ("No", "Yes")
WINDOW = 5
GOLD_LABELS = ("belief_A", "belief_B", "cg_A", "cg_B")
#: The speaker chains a question can ask about (``obs["chain"]`` indexes this), first speaker first.
CHAIN_NAMES = ("A", "B", "A>B", "B>A", "A>B>A", "B>A>B")
#: The certainties a question can ask about (``obs["belief_Q"]`` indexes this), the release's words
#: "certainly", "possibly", "certainly not".
CERTAINTIES = ("CT+", "PS", "CT-")


class CorpusNeeded(DatasetError):
    """Question files without the corpus they were generated from: the fillers cannot be built."""


class CommonToMEnv(QAEnv):
    """Answer Common-ToM's yes/no belief questions while a conversation unfolds (seed 003).

    An episode is one conversation of the common-ground corpus (CALLHOME telephone calls between
    speakers A and B), stepped sentence by sentence: at each sentence that is a time point of some
    event, that sentence's questions are asked, one per env step ("At the time indicated by 🛑, is
    it the case that A believes that B believes it is possibly true that <event>?"). The scored
    questions are the released question files' (or, with ``from_corpus=True``, the same questions
    generated from the corpus by the rules of :mod:`tom_envs.common_ground.questions`).

    **Fillers.** The release keeps all 18 questions of an informative (sentence, event) group and
    1-6 of an uninformative one (its 10 % down-sampling), so the number of questions about an event
    -- or their positions -- would give the labels away to an agent that counts. The env therefore
    asks, for every group with a scored question, all 18 questions the corpus generates for it
    (shuffled within the sentence with the env's seed): the released ones are scored, the others are
    *fillers*, asked, answered and rewarded alike, and told apart only when the conversation ends
    (``scored`` in ``info["answers"]``). Every group thus presents 18 questions in a random order.
    The fillers are generated from ``cg/`` with the release's rules, and every scored question is
    checked to be its generated twin; question files without ``cg/`` raise :class:`CorpusNeeded`.

    ## Action Space
    ``Discrete(2)``: 0 = no, 1 = yes.

    ## Observation Space
    The :class:`~tom_envs.qa.QAEnv` ``Dict``: ``text`` (the prompt for an LLM: dialogue, question
    and "answer yes or no"), ``context`` (the dialogue per ``context``, the current sentence marked
    with 🛑), ``question``, ``background`` (empty), ``choices`` (``("No", "Yes")``),
    ``n_choices`` (2), ``qtype`` (index of ``order_1``/``order_2``/``order_3``), ``turn`` (the
    sentence number) and ``action_mask`` (both ones), plus what the question's wording says in
    structured form: ``chain`` (index into :data:`CHAIN_NAMES`, e.g. ``"B>A"``: B believes that A
    believes ...) and ``belief_Q`` (index into :data:`CERTAINTIES`). Labels, answers and whether a
    question is scored never appear in it.

    ## Rewards
    The number of correct answers of the conversation -- over every question asked, fillers included
    (a reward that skipped them would tell them apart) -- with its last step; 0.0 with every earlier step
    (``feedback="episode"``, the default: answers of one conversation are not independent, so
    per-question feedback could give later answers away). With ``feedback="step"``: 1.0 for a correct answer,
    0.0 otherwise, with each step. The undiscounted return is the same either way. The benchmark's
    accuracy (``tom_outcome()``, :func:`~tom_envs.qa.answered`, ``python -m benchmarks common-ground``)
    counts the scored questions only.

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
    * ``from_corpus``: generate the scored questions from ``cg/`` instead of reading ``questions/``.
    * ``fillers``: ask each scored question's whole group (default True, above). ``False`` asks the
      scored questions alone, as v1 did: for stateless answerers only (one prompt per question, no
      memory), since then counting the questions gives labels away; it needs no ``cg/``.
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
    * ``allow_partial``: take a named split as far as the folder has it, and files named like the
      release's that are not the release's. By default a split is whole or
      :class:`~tom_envs.common_ground.data_folder.IncompleteSplit` names the conversations whose files are
      missing, and every file under a release file's name has the release's record count and sha256
      (:data:`~tom_envs.common_ground.data_folder.RELEASE_FILES`) or
      :class:`~tom_envs.release_files.ReleaseMismatch` names it; with ``allow_partial`` the env loads
      and says what differs in :attr:`release_differences` (``partial`` is then True). Files under
      other names (one's own data) and folders holding ``SAMPLE.md`` (the bundled sample, two
      conversations, and copies of it) are taken as they are. An explicit id that the folder lacks is
      :class:`~tom_envs.common_ground.data_folder.UnknownConversation`.

    ``from_corpus``, ``fillers``, ``expose_labels`` and ``allow_partial`` take a bool only (a string such as ``"false"``
    raises :class:`~tom_envs.errors.InvalidFlag`).

    ## Info
    Nothing returned with a question determines its answer (the information rule,
    :mod:`tom_envs.tom`). ``reset`` describes the question shown: ``order``, ``chain`` (e.g.
    ``"B>A"``), ``belief_Q`` (the certainty asked about), ``cid``, ``sno``, ``eno``,
    ``annotator``, plus :class:`~tom_envs.qa.QAEnv`'s ``qtype``, ``role``, ``episode_id``,
    ``turn``. A ``step`` describes the question just answered: the same keys plus
    ``choice_order``, ``chosen`` and ``invalid``; after the fact -- with the conversation's last
    step (``answers``: one such description per question, in order, each with ``scored``), or with each step under
    ``feedback="step"`` -- also ``answer`` (1 = yes), ``answer_label`` (``"Yes"``/``"No"``) and
    ``correct``. Questions about one event are asked together and share its gold labels, so
    their answers are not independent: none comes back before the conversation ends. The
    speakers' gold labels (``belief_A``, ``belief_B``, ``cg_A``, ``cg_B``) are shared by every
    question about the same event and sentence, so they are never returned
    (except in ``next_labels`` with ``expose_labels=True``). ``reset(options={"cid": 4431})``
    plays a given conversation (``{"episode": i}`` works too).

    ## ToM contract
    Target ``answer`` (the action is the prediction), broken down by ``qtype``; ``tom_truth()``
    the right answer of the scored question just answered (``{}`` after a filler: the scorer's channel,
    out of band, which no policy reads); ``tom_outcome()`` the accuracy so far over the scored
    questions (see :class:`~tom_envs.qa.QAEnv`). A ToM recorder's ``tom_accuracy`` is therefore over
    the release's questions exactly, as are 003's Table 3 figures (``tom_outcome()``,
    :func:`~tom_envs.qa.answered`). Text for LLMs: ``obs["text"]``.

    ## Version History
    * v0: initial version (question rules of issue 6; released and generated question files).
      Later on v0: the answer and the gold labels of a question are no longer in the info
      returned with it or with the questions after it (the information rule).
    * v1: answers and rewards come back when the conversation ends (``feedback="episode"``);
      v0's behaviour is ``feedback="step"``; v0 is no longer registered.
    * v2: fillers: every (sentence, event) group with a scored question is asked whole (18
      questions), so that counts, group sizes and positions carry no labels (issue 24); the scored
      questions are the release's, as before; rewards count every question asked; the last step
      carries ``answers`` under either feedback; the observation adds ``chain`` and ``belief_Q``
      (the question's wording, structured). ``fillers=False`` asks what v1 asked. Flags take bools
      only. v1 is no longer registered.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    reset_options = ("episode", "cid")

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
        fillers: bool = True,
        allow_partial: bool = False,
    ) -> None:
        self.from_corpus = require_bool("from_corpus", from_corpus)
        self.fillers = require_bool("fillers", fillers)
        expose_labels = require_bool("expose_labels", expose_labels)
        if context not in CONTEXT_MODES:
            raise TomEnvsError(f"context must be one of {CONTEXT_MODES}, got {context!r}")
        self.data_dir = data_dir
        self.split = split if isinstance(split, str) else [int(c) for c in split]
        self.context_mode = context
        scored, differences = load_checked_split(
            data_dir,
            split,
            self.from_corpus,
            annotator,
            keep_fraction,
            sample_seed,
            file_order=True,
            allow_partial=allow_partial,
        )
        asked, corpus_differences = asked_questions(
            scored, data_dir, self.from_corpus, annotator, self.fillers, allow_partial
        )
        differences = list(dict.fromkeys(differences + corpus_differences))
        #: How the data differs from the release's (``allow_partial``): missing conversations of the split,
        #: files under a release name with other records; empty for the release, one's own data and the sample.
        self.release_differences: tuple[str, ...] = tuple(differences)
        self.cids = sorted(asked)
        episodes = [[make_item(r, context, scored) for r, scored in asked[cid]] for cid in self.cids]
        super().__init__(episodes, QTYPES, render_mode=render_mode, expose_labels=expose_labels, feedback=feedback)

    extra_public = ("chain", "belief_Q")  # the information rule: the question's chain and certainty are public

    @property
    def partial(self) -> bool:
        """Whether the data loaded is not the whole release (:attr:`release_differences` says how)."""
        return bool(self.release_differences)

    # ------------------------------------------------------------------ prompts
    def _extend_spaces(self) -> None:
        """Size the Text spaces for this env's own prompt (yes/no wording instead of lettered options), and add
        the question's chain and certainty."""
        texts = [render_prompt(it) for ep in self.episodes for it in ep]
        base = self.observation_space["text"]
        charset = frozenset(set(base.character_set) | {c for t in texts for c in t} | set(string.printable))
        longest = max(base.max_length, max(len(t) for t in texts) + 64)
        new = {
            k: (spaces.Text(max_length=longest, min_length=0, charset=charset) if isinstance(v, spaces.Text) else v)
            for k, v in self.observation_space.spaces.items()
        }
        new["choices"] = spaces.Tuple([spaces.Text(max_length=longest, min_length=0, charset=charset) for _ in CHOICES])
        new["chain"] = spaces.Discrete(len(CHAIN_NAMES))
        new["belief_Q"] = spaces.Discrete(len(CERTAINTIES))
        self.observation_space = spaces.Dict(new)

    def _observe(self) -> tuple[dict, dict]:
        obs, info = super()._observe()
        item = self._episode[self._i]
        obs["text"] = render_prompt(item)
        obs["chain"] = CHAIN_NAMES.index(item.role)
        obs["belief_Q"] = CERTAINTIES.index(item.meta["belief_Q"])
        return obs, info

    def _blank(self) -> dict:
        return {**super()._blank(), "chain": 0, "belief_Q": 0}

    def render_text(self) -> str:
        text = super().render_text()
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
                raise UnknownConversation(
                    f"options['cid'] must be one of this env's conversations {self.cids}, got {cid!r}"
                )
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
    return "\n".join(
        [
            "Conversation:",
            item.context,
            "",
            QUESTION_PREFIX + item.question,
            "Answer yes or no (action 1 = yes, 0 = no).",
        ]
    )


def make_item(row: QuestionRow, context: str = "online", scored: bool = True) -> QAItem:
    """A :class:`QAItem` for one question row, with the context cut per ``context`` mode (``scored``
    False: a filler)."""
    parsed = parse_question(row.question)
    chain = ">".join(parsed.chain)
    meta = {
        "order": row.order,
        "chain": chain,
        "belief_Q": row.belief_Q,
        "cid": row.cid,
        "sno": row.sno,
        "eno": row.eno,
        "annotator": row.annotator,
    }
    labels = {"belief_A": row.belief_A, "belief_B": row.belief_B, "cg_A": row.cg_A, "cg_B": row.cg_B}
    return QAItem(
        episode_id=str(row.cid),
        turn=row.sno,
        context=cut_context(row.context, context),
        question=row.question,
        choices=CHOICES,
        answer=1 if row.answer == "Yes" else 0,
        qtype=f"order_{row.order}",
        role=chain,
        meta=meta,
        after={"answer_label": row.answer},
        labels=labels,
        scored=scored,
    )


def cut_context(full: str, mode: str) -> str:
    """The part of a released context (one sentence a line, one marked) that mode ``mode`` shows."""
    lines = full.split("\n")
    at = next(i for i, line in enumerate(lines) if MARKER in line)
    if mode == "online":
        return "\n".join(lines[: at + 1])
    if mode == "window":
        return "\n".join(lines[max(0, at - WINDOW) : at + WINDOW + 1])
    return full


def load_split(
    data_dir: str | Path | None, split: str | Sequence[int], *args: Any, **options: Any
) -> dict[int, list[QuestionRow]]:
    """Conversation id -> its scored questions (the released ones) by sentence, then file order
    (``file_order=True``: in file order). The other arguments are :func:`load_checked_split`'s, in its order
    (``from_corpus``, ``annotator``, ``keep_fraction``, ``sample_seed``, ``file_order``, ``allow_partial``).

    A named split must be whole (every conversation of 003's split has its file), and every file named
    like one of the release's must be the release's (its record count and sha256,
    :data:`~tom_envs.common_ground.data_folder.RELEASE_FILES`), unless ``allow_partial`` or the folder is the
    bundled sample (:func:`load_checked_split` also says what differs).

    Raises:
        IncompleteSplit: a conversation of the named split has no file (and not ``allow_partial``).
        ReleaseMismatch: a file under a release file's name holds other records (and not ``allow_partial``).
        UnknownConversation: an explicit conversation id that the folder does not have.
        DatasetError: the data folder lacks the needed files, or a file is malformed.
    """
    return load_checked_split(data_dir, split, *args, **options)[0]


def load_checked_split(
    data_dir: str | Path | None,
    split: str | Sequence[int],
    from_corpus: bool = False,
    annotator: str | None = None,
    keep_fraction: float = DEFAULT_KEEP_FRACTION,
    sample_seed: int = DEFAULT_SAMPLE_SEED,
    file_order: bool = False,
    allow_partial: bool = False,
) -> tuple[dict[int, list[QuestionRow]], list[str]]:
    """:func:`load_split`, and how the data differs from the release's (``allow_partial``): one line per
    missing conversation of the named split and per file that is not the release's; ``[]`` when the data
    is the release's, one's own (other file names) or the bundled sample. Scores on data with differences
    are ``partial``."""
    allow_partial = require_bool("allow_partial", allow_partial)
    folder = scan(data_dir)
    files = folder.corpus if from_corpus else folder.questions
    if not files:
        where = "cg/<cid>_<annotator>_....tsv" if from_corpus else "questions/<cid>_<annotator>_yn_questions.csv.gz"
        hint = "" if from_corpus else " (or pass from_corpus=True to generate them from cg/)"
        raise DatasetError(f"{folder.root}: no {where} files{hint}")
    out: dict[int, list[QuestionRow]] = {}
    sub = "cg/" if from_corpus else "questions/"
    sample = is_bundled_sample(folder)
    differences = (
        []
        if sample
        else [
            f"{folder.root / sub}: conversation {cid} of split {split!r} has no file (--allow-partial)"
            for cid in missing_conversations(split, (c for c, _ in files))
        ]
    )
    for cid in split_cids(split, (c for c, _ in files), not allow_partial and not sample, f"{folder.root / sub}"):
        path = pick_annotator(files, cid, annotator)
        if from_corpus:
            conv = read_corpus(path)
            differences.append(check_file(folder, path, len(conv.rows), allow_partial))
            rows = generate_questions(conv, keep_fraction, sample_seed)
        else:
            rows = read_questions(path)
            check_question_rows(rows, path, cid)  # InconsistentQuestion names the file and record
            differences.append(check_file(folder, path, len(rows), allow_partial))
        if not file_order:
            rows = sorted(rows, key=lambda r: r.sno)  # stable: file order within a sentence
        if rows:
            out[cid] = rows
    if not out:
        raise DatasetError(f"{folder.root}: split {split!r} has no questions at all")
    return out, [d for d in differences if d]


def asked_questions(
    scored: dict[int, list[QuestionRow]],
    data_dir: str | Path | None,
    from_corpus: bool = False,
    annotator: str | None = None,
    fillers: bool = True,
    allow_partial: bool = False,
) -> tuple[dict[int, list[tuple[QuestionRow, bool]]], list[str]]:
    """Conversation id -> the questions the env asks, by sentence, each with whether it is scored; and how the
    corpus files read for the fillers differ from the release's (:func:`load_checked_split`).

    ``scored`` is :func:`load_checked_split`'s (``file_order=True``) on the same folder and ``from_corpus``.
    With ``fillers`` (the default), every (sentence, event) group with a scored question is asked whole: the
    questions the corpus generates for it (:func:`~tom_envs.common_ground.questions.with_fillers`), the scored
    ones among them.

    Raises:
        CorpusNeeded: fillers are asked, the questions come from ``questions/`` and ``cg/`` lacks the
            conversation's corpus file.
        DatasetError: a released question the corpus does not generate.
    """
    fillers = require_bool("fillers", fillers)
    from_corpus = require_bool("from_corpus", from_corpus)
    differences: list[str] = []
    if not fillers:
        return {cid: [(r, True) for r in sorted(rows, key=lambda r: r.sno)] for cid, rows in scored.items()}, []
    folder = scan(data_dir)
    out: dict[int, list[tuple[QuestionRow, bool]]] = {}
    for cid, rows in scored.items():
        files = folder.corpus if from_corpus else folder.questions
        source = pick_annotator(files, cid, annotator)
        who = next(a for (c, a), path in files.items() if c == cid and path == source)
        if not from_corpus and (cid, who) not in folder.corpus:
            have = sorted(a for c, a in folder.corpus if c == cid)
            raise CorpusNeeded(
                f"{folder.root}: conversation {cid}'s scored questions ({source.name}) are asked among the other "
                f"questions of their (sentence, event) groups, which are generated from the corpus, and there is no "
                f"cg/{cid}_{who}_....tsv (corpus files of {cid}: {have or 'none'}). Put the release's cg/ beside "
                f"questions/ (python -m benchmarks data download common-ground --dest DIR fetches both), or pass "
                f"fillers=False to ask the released questions alone (an agent that counts them can then read labels "
                f"off their number; docs/common_ground.md)"
            )
        conv = read_corpus(folder.corpus[(cid, who)], cid, who)
        differences.append(check_file(folder, folder.corpus[(cid, who)], len(conv.rows), allow_partial))
        out[cid] = sorted(with_fillers(rows, all_questions(conv), str(source)), key=lambda p: p[0].sno)
    return out, [d for d in differences if d]
