"""Turn the common-ground corpus into Common-ToM's yes/no belief questions (seed 003, issue 6).

The rules, in the order they are applied:

1. **Accumulation.** An annotation item ``LABEL eno`` sets that speaker's belief or CG status of
   event ``eno`` from its row on; the state at a sentence is the state at its row with the largest
   Eno. A speaker with a belief but no CG label has NA. As the release's generator merges the two
   speakers, the speaker with more labelled (sentence, event) pairs leads: the other one's labels
   are missing where it has none (such states count in rule 3 but are never asked about), and
   events get NB/NB/NA/NA at every sentence number from 1 where the leader has no label.
2. **Speech acts.** Within a sentence, the labelled events in Eno. order: when an event's text ends
   with the next event's text and, with that text removed and split on single spaces, the second
   word is "asks" or "jokes" or the second and third are "said that", the first is dropped.
3. **Time points.** For each event: the sentences where a (belief_A, belief_B) pair first occurs,
   plus the first and last sentence with a state, sorted without repeats, minus the first and the
   last element.
4. **Questions.** 18 per (time point, event), by event then sentence: orders 1-3 x two speaker
   chains x three certainties (CT-, CT+, PS, the release's order).
5. **Answers.** :func:`resolve` (the rules that reproduce every released answer).
6. **Grouping and down-sampling.** The rows are written by label group (belief_A, belief_B, cg_A,
   cg_B) in sorted order; the uninformative groups (CT+, CT+, JA, JA) and (NB, NB, NA, NA) keep a
   seeded 10 % (``RandomState(42).choice``, as pandas' ``sample(frac=0.1, random_state=42)``).
   On the authors' release this reproduces the four released question files row for row.
7. **Fillers** (ours, not the release's; :func:`with_fillers`). Rule 6 leaves 18 questions in every
   informative (sentence, event) group and 1-6 in a down-sampled one, so how many questions a group
   has would tell its labels. The env asks every question of rule 4 of each group that has a scored
   (released) question; the ones rule 6 dropped are asked too, unscored.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from pathlib import Path

from tom_envs.common_ground.corpus import (
    MARKER,
    MISSING_EVENT_TEXT,
    Conversation,
    QuestionRow,
    read_corpus,
    scan,
    write_questions,
)
from tom_envs.errors import DatasetError


class InvalidKeepFraction(DatasetError, ValueError):
    """A down-sampling share outside [0, 1]."""


class QuestionsDisagreeWithCorpus(DatasetError):
    """A question file holds a question that the corpus does not generate (so no fillers can be built for it)."""


CERTAINTY_WORDS: dict[str, str] = {"CT+": "certainly", "PS": "possibly", "CT-": "certainly not"}
#: The order the release's generator asks the three certainties in, for each speaker chain.
RELEASE_CERTAINTY_ORDER: tuple[str, ...] = ("CT-", "CT+", "PS")
#: The speaker chains of each order (first speaker first); self-belief chains are never asked.
CHAINS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: (("A",), ("B",)),
    2: (("A", "B"), ("B", "A")),
    3: (("A", "B", "A"), ("B", "A", "B")),
}
#: Label groups (belief_A, belief_B, cg_A, cg_B) kept only in part (rule 6).
DOWNSAMPLED_GROUPS: tuple[tuple[str, str, str, str], ...] = (("CT+", "CT+", "JA", "JA"), ("NB", "NB", "NA", "NA"))
DEFAULT_KEEP_FRACTION = 0.1
DEFAULT_SAMPLE_SEED = 42
CONTEXT_TYPE = "end"
_PREFIX = f"At the time indicated by {MARKER}, is it the case that"
_SPEECH_ACTS = (("asks",), ("jokes",), ("said", "that"))
_QUESTION = re.compile(
    rf"^{re.escape(_PREFIX)} ((?:[AB] believes that )*)([AB]) believes it is (certainly not|certainly|possibly) true that (.*)\?$",
    re.DOTALL,
)


# ---------------------------------------------------------------------- answers (rule 5)


def _holds(q: str, belief: str) -> bool:
    """Does a speaker with ``belief`` hold the question's certainty ``q`` (CT+ implies PS)?"""
    return q == belief or (q == "PS" and belief == "CT+")


def resolve_first_order(q: str, bel1: str) -> bool:
    """``S1 believes it is <q> true that e``: yes iff bel(S1) holds q."""
    return _holds(q, bel1)


def resolve_second_order(q: str, bel1: str, bel2: str, cg1: str) -> bool:
    """``S1 believes that S2 believes it is <q> true that e``.

    Yes when the certainty is positive, S1 has e in its common ground (JA/IN) and S1's own belief
    holds q; or when q is CT-, S1 has rejected e from the common ground (RT) and S2's belief is CT-.
    """
    if q in ("PS", "CT+") and cg1 in ("JA", "IN") and _holds(q, bel1):
        return True
    return q == "CT-" and cg1 == "RT" and bel2 == "CT-"


def resolve_third_order(q: str, bel1: str, bel2: str, cg1: str) -> bool:
    """``S1 believes that S2 believes that S1 believes it is <q> true that e``.

    As the second order for positive certainties; for CT- it is yes when S1's status is RT or NA
    and S1's own belief is CT- (the released data uses S1's belief here, not S2's).
    """
    if q in ("PS", "CT+") and cg1 in ("JA", "IN") and _holds(q, bel1):
        return True
    return q == "CT-" and cg1 in ("RT", "NA") and bel1 == "CT-"


def resolve(order: int, q: str, chain: Sequence[str], beliefs: dict[str, str], cg: dict[str, str]) -> bool:
    """The answer (True = yes) to a question of ``order`` about speakers ``chain``.

    Args:
        order: 1, 2 or 3.
        q: the question's certainty (``"CT+"``, ``"PS"``, ``"CT-"``).
        chain: the speakers, first one first (e.g. ``("B", "A")``).
        beliefs: speaker -> belief label (CT+, PS, CT-, NB).
        cg: speaker -> common-ground status (JA, IN, RT, NA).
    """
    s1 = chain[0]
    if order == 1:
        return resolve_first_order(q, beliefs[s1])
    s2 = chain[1]
    if order == 2:
        return resolve_second_order(q, beliefs[s1], beliefs[s2], cg[s1])
    if order == 3:
        return resolve_third_order(q, beliefs[s1], beliefs[s2], cg[s1])
    raise ValueError(f"order must be 1, 2 or 3, got {order!r}")


# ---------------------------------------------------------------------- question text (rule 4)


def question_text(chain: Sequence[str], q: str, event: str) -> str:
    """The released template, e.g. ``... that A believes that B believes it is possibly true that <event>?``."""
    believers = "".join(f"{s} believes that " for s in chain[:-1])
    return f"{_PREFIX} {believers}{chain[-1]} believes it is {CERTAINTY_WORDS[q]} true that {event}?"


@dataclass(frozen=True)
class ParsedQuestion:
    """What a question asks: the speaker chain, the certainty and the event text."""

    chain: tuple[str, ...]
    certainty: str
    event: str

    @property
    def order(self) -> int:
        return len(self.chain)


def parse_question(text: str) -> ParsedQuestion:
    """Read a question written with :func:`question_text` back into its parts.

    Raises:
        ValueError: the text does not follow the template.
    """
    match = _QUESTION.match(text.strip())
    if match is None:
        raise ValueError(f"not a Common-ToM question: {text[:80]!r}")
    chain = tuple(match.group(1).replace(" believes that ", "").strip()) + (match.group(2),)
    certainty = {v: k for k, v in CERTAINTY_WORDS.items()}[match.group(3)]
    return ParsedQuestion(chain, certainty, match.group(4))


# ---------------------------------------------------------------------- states (rule 1)


@dataclass(frozen=True)
class EventState:
    """The accumulated labels of one event at the end of one sentence.

    A speaker's belief (and then CG status) is ``None`` when the release's generator would hold a
    missing value there: the other speaker has a belief label and this one has none yet.
    """

    sno: int
    eno: float
    belief_A: str | None
    belief_B: str | None
    cg_A: str | None
    cg_B: str | None

    @property
    def labels(self) -> tuple[str | None, str | None, str | None, str | None]:
        return (self.belief_A, self.belief_B, self.cg_A, self.cg_B)

    @property
    def complete(self) -> bool:
        return None not in self.labels


def _end_rows(conv: Conversation) -> list[tuple[int, dict[str, dict[float, str]]]]:
    """``(sno, accumulated labels)`` at each row holding its sentence's largest Eno., in file order.

    The labels are ``{"belief_A": {eno: label}, "belief_B": ..., "cg_A": ..., "cg_B": ...}`` with
    the items in the order they were first written (later items overwrite earlier ones in place).
    """
    largest: dict[int, float] = {}
    for row in conv.rows:
        largest[row.sno] = max(largest.get(row.sno, row.eno), row.eno)
    current: dict[str, dict[float, str]] = {"belief_A": {}, "belief_B": {}, "cg_A": {}, "cg_B": {}}
    ends = []
    for row in conv.rows:
        cell: dict[str, dict[float, str]] = {k: {} for k in current}
        for speaker, kind, label, eno in row.annotations:
            cell[f"{kind}_{speaker}"][eno] = label
        current = {k: current[k] | cell[k] for k in current}
        if row.eno == largest[row.sno]:
            ends.append((row.sno, current))
    return ends


def event_states(conv: Conversation, partial: bool = False) -> dict[float, list[EventState]]:
    """Event number -> its states, one per sentence, sorted by sentence (rule 1).

    As the release's generator: a state exists at a sentence for each event with a belief label of
    the speaker who has more (event, sentence) labels over the conversation (A on a tie goes to B),
    with a missing label for the other speaker; events get NB/NB/NA/NA at every sentence number from
    1 to the last one where they have no state. ``partial=False`` leaves out the states with a
    missing label (they still count as time points, rule 3, but are never asked about).
    """
    per_speaker: dict[str, list[tuple[int, float, str, str]]] = {"A": [], "B": []}
    for sno, labels in _end_rows(conv):
        for speaker in ("A", "B"):
            for eno, belief in labels[f"belief_{speaker}"].items():
                per_speaker[speaker].append((sno, eno, belief, labels[f"cg_{speaker}"].get(eno, "NA")))
    lead = "A" if len(per_speaker["A"]) > len(per_speaker["B"]) else "B"
    other = {(sno, eno): (bel, cg) for sno, eno, bel, cg in per_speaker["B" if lead == "A" else "A"]}
    by_event: dict[float, dict[int, EventState]] = {}
    for sno, eno, bel, cg in per_speaker[lead]:
        bel2, cg2 = other.get((sno, eno), (None, None))
        pair = {lead: (bel, cg), "B" if lead == "A" else "A": (bel2, cg2)}
        by_event.setdefault(eno, {}).setdefault(
            sno, EventState(sno, eno, pair["A"][0], pair["B"][0], pair["A"][1], pair["B"][1])
        )
    last = max((sno for states in by_event.values() for sno in states), default=0)
    result: dict[float, list[EventState]] = {}
    for eno in sorted(by_event):
        present = by_event[eno]
        states = [present.get(sno) or EventState(sno, eno, "NB", "NB", "NA", "NA") for sno in range(1, last + 1)]
        states += [s for sno, s in present.items() if sno > last or sno < 1]
        result[eno] = sorted((s for s in states if partial or s.complete), key=lambda s: s.sno)
    return result


# ---------------------------------------------------------------------- speech acts (rule 2)


def speech_act_events(conv: Conversation, enos: Sequence[float] | None = None) -> set[float]:
    """Event numbers dropped as speech-act wrappers of the next event of the same sentence (rule 2).

    ``enos``: the events considered, paired in Eno. order within each sentence (default: every event
    with text; the generator passes the events with a state, as the release's generator pairs them).
    """
    if enos is None:
        enos = list(conv.events)
    by_sentence: dict[int, list[float]] = {}
    for eno in sorted(enos):
        by_sentence.setdefault(math.floor(eno), []).append(eno)
    dropped = set()
    for ordered in by_sentence.values():
        for left, right in itertools.pairwise(ordered):
            if _is_speech_act(_event_text(conv, left), _event_text(conv, right)):
                dropped.add(left)
    return dropped


def _event_text(conv: Conversation, eno: float) -> str:
    return conv.events.get(eno, MISSING_EVENT_TEXT)


def _is_speech_act(text: str, inner: str) -> bool:
    """The release's test: ``text`` ends with ``inner`` and, with ``inner`` removed and split on single
    spaces, the second word is "asks"/"jokes" or the second and third are "said that"."""
    if not text.endswith(inner):
        return False
    words = text.replace(inner, "").split(" ")
    second = words[1] if len(words) > 1 else None
    third = words[2] if len(words) > 2 else None
    return second in ("asks", "jokes") or (second == "said" and third == "that")


# ---------------------------------------------------------------------- time points (rule 3)


def time_points(states: Sequence[EventState], first_sno: int, last_sno: int) -> list[int]:
    """Sentences at which an event is asked about (rule 3)."""
    first_seen: dict[tuple[str | None, str | None], int] = {}
    for state in sorted(states, key=lambda s: s.sno):
        first_seen.setdefault((state.belief_A, state.belief_B), state.sno)
    ends = sorted({first_sno, last_sno, *first_seen.values()})
    return ends[1:-1]


# ---------------------------------------------------------------------- generation (rules 4-6)


def context_with_marker(conv: Conversation, sno: int) -> str:
    """The whole conversation, one sentence a line, with the marker after sentence ``sno``."""
    return "\n".join(f"{text} {MARKER}" if s == sno else text for s, text in conv.sentences.items())


def questions_for_state(conv: Conversation, state: EventState, context: str) -> list[QuestionRow]:
    """The 18 questions about one event at one time point (rule 4), answered by rule 5."""
    beliefs = {"A": state.belief_A, "B": state.belief_B}
    cg = {"A": state.cg_A, "B": state.cg_B}
    rows = []
    for order, chains in CHAINS.items():
        for chain in chains:
            for q in RELEASE_CERTAINTY_ORDER:
                rows.append(
                    QuestionRow(
                        sno=state.sno,
                        eno=state.eno,
                        belief_A=state.belief_A,
                        belief_B=state.belief_B,
                        belief_Q=q,
                        cg_A=state.cg_A,
                        cg_B=state.cg_B,
                        order=order,
                        question=question_text(chain, q, _event_text(conv, state.eno)),
                        answer="Yes" if resolve(order, q, chain, beliefs, cg) else "No",
                        context_type=CONTEXT_TYPE,
                        cid=conv.cid,
                        annotator=conv.annotator,
                        context=context,
                    )
                )
    return rows


def asked_states(conv: Conversation) -> list[EventState]:
    """The (event, time point) states asked about, by event then sentence, as the release's generator."""
    states = event_states(conv, partial=True)
    dropped = speech_act_events(conv, list(states))
    kept = {eno: ss for eno, ss in states.items() if eno not in dropped}
    snos = [s.sno for ss in kept.values() for s in ss]
    if not snos:
        return []
    first, last = min(snos), max(snos)
    chosen: list[EventState] = []
    for eno in sorted(kept):
        points = set(time_points(kept[eno], first, last))
        chosen += [s for s in kept[eno] if s.sno in points and s.complete]
    return chosen


def all_questions(conv: Conversation) -> list[QuestionRow]:
    """Every question of rules 1-5, sorted by sentence then event (no down-sampling)."""
    return sorted(_questions(conv, asked_states(conv)), key=lambda r: (r.sno, r.eno))


def _questions(conv: Conversation, states: Sequence[EventState]) -> list[QuestionRow]:
    contexts: dict[int, str] = {}
    rows: list[QuestionRow] = []
    for state in states:
        if state.sno not in conv.sentences:
            raise DatasetError(
                f"{conv.path}: event {state.eno:g} is asked about at sentence {state.sno}, which the "
                "conversation does not have; number the sentences 1, 2, 3, ... without gaps"
            )
        context = contexts.setdefault(state.sno, context_with_marker(conv, state.sno))
        rows += questions_for_state(conv, state, context)
    return rows


def check_keep_fraction(keep_fraction: float) -> float:
    """``keep_fraction`` if it is a share in [0, 1].

    Raises:
        InvalidKeepFraction: it is not.
    """
    if not 0.0 <= keep_fraction <= 1.0:
        raise InvalidKeepFraction(
            f"keep_fraction must be in [0, 1] (the share of each uninformative group that is "
            f"kept; the release uses 0.1), got {keep_fraction}"
        )
    return keep_fraction


def downsample(
    rows: Sequence[QuestionRow], keep_fraction: float = DEFAULT_KEEP_FRACTION, seed: int = DEFAULT_SAMPLE_SEED
) -> list[QuestionRow]:
    """Group the questions by label (rule 6) as the release's generator writes them.

    The groups (belief_A, belief_B, cg_A, cg_B) come in sorted order, each in the order given; the
    uninformative ones keep ``round(keep_fraction * n)`` questions drawn without replacement by
    ``numpy.random.RandomState(seed).choice`` (a fresh draw per group), in the order drawn — what
    ``DataFrame.sample(frac=keep_fraction, random_state=seed)`` does.
    """
    check_keep_fraction(keep_fraction)
    groups: dict[tuple[str, str, str, str], list[QuestionRow]] = {}
    for row in rows:
        groups.setdefault((row.belief_A, row.belief_B, row.cg_A, row.cg_B), []).append(row)
    out: list[QuestionRow] = []
    for key in sorted(groups):
        members = groups[key]
        if key in DOWNSAMPLED_GROUPS:
            picks = np.random.RandomState(seed).choice(
                len(members), size=round(keep_fraction * len(members)), replace=False
            )
            members = [members[i] for i in picks.tolist()]
        out += members
    return out


def generate_questions(
    conv: Conversation, keep_fraction: float = DEFAULT_KEEP_FRACTION, seed: int = DEFAULT_SAMPLE_SEED
) -> list[QuestionRow]:
    """The question file of one conversation: rules 1-6.

    Args:
        conv: the annotated conversation.
        keep_fraction: share of each uninformative label group that is kept (1.0 keeps all).
        seed: seed of the down-sampling draw.
    """
    check_keep_fraction(keep_fraction)
    return downsample(_questions(conv, asked_states(conv)), keep_fraction, seed)


def export_questions(
    data_dir: str | Path | None,
    out_dir: str | Path,
    keep_fraction: float = DEFAULT_KEEP_FRACTION,
    seed: int = DEFAULT_SAMPLE_SEED,
) -> list[Path]:
    """Generate the question file of every corpus file under ``data_dir/cg`` into ``out_dir``.

    Files are named ``<cid>_<annotator>_yn_questions.csv.gz`` like the released ones.

    Raises:
        DatasetError: ``data_dir`` has no corpus files, or one is malformed.
    """
    folder = scan(data_dir)
    if not folder.corpus:
        raise DatasetError(f"{folder.root}: no cg/<cid>_<annotator>_....tsv corpus files to generate questions from")
    written = []
    for (cid, annotator), path in sorted(folder.corpus.items()):
        rows = generate_questions(read_corpus(path, cid, annotator), keep_fraction, seed)
        written.append(write_questions(rows, Path(out_dir) / f"{cid}_{annotator}_yn_questions.csv.gz"))
    return written


# ---------------------------------------------------------------------- fillers (rule 7)


def with_fillers(
    scored: Sequence[QuestionRow], generated: Sequence[QuestionRow], source: str = "questions"
) -> list[tuple[QuestionRow, bool]]:
    """The questions to ask: every question of ``generated`` (rules 1-5, :func:`all_questions`) whose
    (sentence, event) group holds a question of ``scored``, in ``generated``'s order, each paired with
    whether it is scored. A scored question is its ``generated`` twin (equal in every column), so a
    filler cannot be told from a scored question by its text, context or labels.

    Args:
        scored: the benchmark's questions (a released file, or :func:`generate_questions`), file order.
        generated: every question the corpus generates before down-sampling.
        source: names ``scored``'s file in errors (rows are numbered as lines, header = line 1).

    Raises:
        QuestionsDisagreeWithCorpus: a scored question is not generated from the corpus, differs from
            its generated twin in some column, or is there twice.
    """
    index = {(r.sno, r.eno, r.question): r for r in generated}
    keys: set[tuple[int, float, str]] = set()
    for line, row in enumerate(scored, start=2):
        key = (row.sno, row.eno, row.question)
        twin = index.get(key)
        hint = (
            "the question file and the corpus file must come from the same release (as the authors' data/ "
            "does); or ask the question file's questions alone with fillers=False"
        )
        if twin is None:
            raise QuestionsDisagreeWithCorpus(
                f"{source}, row {line}: the corpus generates no question {row.question[:90]!r} about event "
                f"{row.eno:g} at sentence {row.sno}, so its group's other questions cannot be asked with it; {hint}"
            )
        if twin != row:
            fields = [f for f in type(row).model_fields if getattr(row, f) != getattr(twin, f)]
            raise QuestionsDisagreeWithCorpus(
                f"{source}, row {line}: differs from the question the corpus generates in {', '.join(fields)}; {hint}"
            )
        if key in keys:
            raise QuestionsDisagreeWithCorpus(f"{source}, row {line}: the same question is listed twice; {hint}")
        keys.add(key)
    groups = {(r.sno, r.eno) for r in scored}
    return [(r, (r.sno, r.eno, r.question) in keys) for r in generated if (r.sno, r.eno) in groups]


# ---------------------------------------------------------------------- cross-checks of released rows


class InconsistentQuestion(DatasetError):
    """A row of a question file contradicts itself or its file: its question text does not follow the
    template, its ``order``/``belief_Q`` disagree with the text, its answer is not what its labels give
    (:func:`resolve`), its ``cid`` is not the file's, or it repeats an earlier row."""


def check_question_rows(rows: Sequence[QuestionRow], path: str | Path, cid: int | None = None) -> None:
    """Cross-check the rows of one question file (row ``i`` is record ``i + 1`` of ``path``).

    Args:
        rows: the file's rows (:func:`~tom_envs.common_ground.corpus.read_questions`), in file order.
        path: the file, for the messages.
        cid: the conversation the file's name says (None: not checked).

    Raises:
        InconsistentQuestion: naming the file, the record and what disagrees.
    """
    seen: dict[tuple, int] = {}
    for number, row in enumerate(rows, start=1):
        where = f"{path}, record {number}"
        try:
            parsed = parse_question(row.question)
        except ValueError as exc:
            raise InconsistentQuestion(
                f"{where}: {exc}; a question reads 'Based on the conversation, ... "
                f"believes it is <certainly|possibly|certainly not> true that <event>?'"
            ) from None
        if parsed.order != row.order:
            raise InconsistentQuestion(
                f"{where}: order column {row.order}, but the question's text is of order "
                f"{parsed.order} ({'>'.join(parsed.chain)})"
            )
        if parsed.certainty != row.belief_Q:
            raise InconsistentQuestion(
                f"{where}: belief_Q column {row.belief_Q}, but the question's text asks {parsed.certainty}"
            )
        if cid is not None and row.cid != cid:
            raise InconsistentQuestion(f"{where}: cid column {row.cid}, but the file is conversation {cid}'s")
        expected = resolve(
            parsed.order,
            parsed.certainty,
            parsed.chain,
            {"A": row.belief_A, "B": row.belief_B},
            {"A": row.cg_A, "B": row.cg_B},
        )
        if ("Yes" if expected else "No") != row.answer:
            raise InconsistentQuestion(
                f"{where}: answer {row.answer}, but its labels (Bel(A) {row.belief_A}, Bel(B) {row.belief_B}, "
                f"CG(A) {row.cg_A}, CG(B) {row.cg_B}) give {'Yes' if expected else 'No'} for this question"
            )
        key = (row.sno, row.eno, row.question)
        if key in seen:
            raise InconsistentQuestion(
                f"{where}: repeats record {seen[key]} (sentence {row.sno}, event {row.eno:g}, the same question)"
            )
        seen[key] = number
