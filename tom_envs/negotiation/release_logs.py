"""The release's own output logs, imported and scored with our metric functions (issue 28).

ProMediate-Eval's ``multiparty_conversation_negotiate.py`` writes ``conversation.txt`` (the run's log,
then a line ``📋 Conversation Summary:`` and one line per event, ``🔄 Turn {i+1}: {name}: "{content}"``);
``scripts/consensus_agreement_pipeline.py`` writes ``agreement_scores.json`` (one entry per line plus the
initial one: ``{topic: [per pair {"overall_consensus_score": x, ...}]}``); ``scripts/behavior_evaluation.py``
writes ``behavior_score.json`` (per mediator line ``{"monitoring": ..., "planning": ..., "simple": ...}``).
:func:`read_release_run` reads them as the release's ``scripts/evaluation.py`` does, and
:func:`release_run_metrics` recomputes its figures with :mod:`tom_envs.negotiation.metrics`:

* ``frequency`` (``evaluate_frequency``), ``consensus_change`` (CC), ``success_rate`` and
  ``success_rate_max``, ``latency`` (RL; None where the release prints -1) -- from the files alone;
* ``intervene_yield`` (ME) and ``intervene_per_step`` need the topics each mediator line addresses and
  ``topic_efficiencies`` / ``mean_topic_efficiency`` (TLE) the lines that mention each topic: the release
  asks GPT-4.1; pass the answers (``addressed``: line index -> topic names; ``mentions``: topic -> line
  indices), else those keys are None;
* ``monitoring_score``, ``planning_score``, ``simple_score`` from ``behavior_score.json`` when given.

Line indices are the release's: 0 is the first line after the summary marker (the mediator's opening
line, which the release leaves out of the mediator turns and subtracts from the frequency).

The other way, :func:`write_release_run` writes one of our episodes as the release's ``conversation.txt`` and
``agreement_scores.json`` (:func:`release_scores`), so the release's own scripts can score it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tom_envs.negotiation.errors import NegotiationError
from tom_envs.negotiation.metrics import (
    behaviour_score,
    release_consensus_change,
    release_mediator_effectiveness,
    release_mediator_frequency,
    release_response_latencies,
    release_success_rate,
    release_topic_level_efficiency,
)

SUMMARY_MARKER = "📋 Conversation Summary:"


class ReleaseLogError(NegotiationError, ValueError):
    """A ProMediate-Eval output log (``conversation.txt``, ``agreement_scores.json``,
    ``behavior_score.json``) is not in the layout the release's scripts write; the message says where."""


@dataclass(frozen=True)
class ReleaseRun:
    """One run of the release, as its evaluation script reads it.

    Attributes:
        lines: the conversation lines after the summary marker (newlines stripped).
        speakers: each line's speaker name (the part between the first two ``": "``).
        texts: each line's words (after the speaker; the release's quotes kept).
        scores: ``process_scores`` of ``agreement_scores.json``: ``"overall"`` and each topic's series,
            the initial score first (one more value than lines).
        behaviour: ``behavior_score.json``'s entries, or None.
    """

    lines: tuple[str, ...]
    speakers: tuple[str, ...]
    texts: tuple[str, ...]
    scores: Mapping[str, list[float]]
    behaviour: tuple[dict, ...] | None = None

    @property
    def topics(self) -> list[str]:
        return [k for k in self.scores if k != "overall"]

    @property
    def mediator_lines(self) -> list[int]:
        """The release's ``mediator_turns``: indices i >= 1 of lines whose speaker contains "Mediator",
        up to the first blank line."""
        out = []
        for i, line in enumerate(self.lines):
            if i == 0:
                continue
            if not line.strip():
                break
            if "Mediator" in line.split(":")[1]:
                out.append(i)
        return out


def _load(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReleaseLogError(f"{path}: no such file ({what})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReleaseLogError(f"{path}: not a JSON file as the release writes {what} ({exc})") from None


def process_scores(entries: Any, source: str = "agreement_scores.json") -> dict[str, list[float]]:
    """The release's ``process_scores``: per entry and topic, the sum of the pairs' truthy
    ``overall_consensus_score`` over the number of pairs (0 without pairs); ``overall`` the mean over topics."""
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise ReleaseLogError(
            f"{source}: expected a non-empty list with one {{topic: [pair scores]}} object per line "
            "(the initial scores first)"
        )
    topics = list(entries[0])
    out: dict[str, list[float]] = {"overall": [], **{t: [] for t in topics}}
    for n, entry in enumerate(entries):
        per_topic = []
        for t in topics:
            pairs = entry.get(t)
            if not isinstance(pairs, list) or not all(
                isinstance(p, dict) and "overall_consensus_score" in p for p in pairs
            ):
                raise ReleaseLogError(
                    f"{source}: entry {n}, topic {t!r}: expected a list of pair scores with 'overall_consensus_score'"
                )
            vals = [p["overall_consensus_score"] for p in pairs]
            bad = [
                v
                for v in vals
                if v and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v))
            ]
            if bad:
                raise ReleaseLogError(f"{source}: entry {n}, topic {t!r}: consensus scores must be numbers, got {bad}")
            value = sum(v for v in vals if v) / len(vals) if vals else 0
            out[t].append(value)
            per_topic.append(value)
        out["overall"].append(sum(per_topic) / len(per_topic) if per_topic else 0)
    return out


def read_release_run(
    conversation: str | Path, scores: str | Path | None = None, behaviour: str | Path | None = None
) -> ReleaseRun:
    """A run from ``conversation.txt`` and ``agreement_scores.json`` (default: beside it), and
    ``behavior_score.json`` if given (or present beside it).

    Raises:
        ReleaseLogError: no summary marker, a line that is not ``<turn>: <speaker>: <words>``, scores whose
            number is not the lines' plus one, or a file that is not the release's JSON.
    """
    conv = Path(conversation)
    if conv.is_dir():
        conv = conv / "conversation.txt"
    try:
        raw = conv.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise ReleaseLogError(f"{conv}: no such file (the release's conversation.txt)") from None
    except UnicodeDecodeError as exc:
        raise ReleaseLogError(f"{conv}: not a UTF-8 text file ({exc.reason})") from None
    if SUMMARY_MARKER not in raw:
        raise ReleaseLogError(
            f"{conv}: no line {SUMMARY_MARKER!r}; the release writes the conversation after it "
            "(an unfinished run has none)"
        )
    lines = raw[raw.index(SUMMARY_MARKER) + 1 :]
    while lines and not lines[-1].strip():
        lines.pop()
    speakers, texts = [], []
    for n, line in enumerate(lines):
        parts = line.split(": ", 2)
        if len(parts) != 3:
            raise ReleaseLogError(f"{conv}: conversation line {n} is not '<turn>: <speaker>: <words>': {line[:80]!r}")
        speakers.append(parts[1])
        texts.append(parts[2])
    scores_path = Path(scores) if scores is not None else conv.parent / "agreement_scores.json"
    aggregated = process_scores(_load(scores_path, "agreement_scores.json"), str(scores_path))
    if len(aggregated["overall"]) != len(lines) + 1:
        raise ReleaseLogError(
            f"{scores_path}: {len(aggregated['overall'])} score entries for {len(lines)} lines; the "
            "release has one per line plus the initial one (rerun its consensus pipeline)"
        )
    beh_path = Path(behaviour) if behaviour is not None else conv.parent / "behavior_score.json"
    beh = None
    if behaviour is not None or beh_path.is_file():
        data = _load(beh_path, "behavior_score.json")
        if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
            raise ReleaseLogError(
                f"{beh_path}: expected a list with one {{monitoring, planning, simple}} object per mediator line"
            )
        beh = tuple(data)
    return ReleaseRun(tuple(lines), tuple(speakers), tuple(texts), aggregated, beh)


def release_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Our transcript's lines as the release's conversation summary writes them, one per event (the opening
    line, ``tom/Negotiation-v2``, first): ``🔄 Turn {i+1}: {speaker}: "{text}"``. A line break inside an
    utterance stays in its line (the release's ``split("\\n")`` would cut it into lines of its own)."""
    return [f'🔄 Turn {i + 1}: {e["speaker"]}: "{e["text"]}"' for i, e in enumerate(events)]


def write_release_conversation(events: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write ``events`` as a ``conversation.txt`` in the release's layout (a header, the summary marker,
    :func:`release_lines`), which :func:`read_release_run` and the release's scripts read."""
    path = Path(path)
    body = "".join(f"{line}\n" for line in release_lines(events))
    path.write_text(f"\n==== 🏁 End of Conversation 🏁 ====\n{SUMMARY_MARKER}\n{body}", encoding="utf-8")
    return path


def release_scores(
    topic_consensus: Mapping[str, Sequence[float]], transcript: Sequence[Mapping[str, Any]], parties: int
) -> list[dict[str, list[dict[str, float]]]]:
    """An episode's consensus as the release's ``agreement_scores.json`` holds it: the initial entry, then one
    entry per line of the transcript (:func:`release_lines`), each the consensus after that line -- an opening
    line (v2, turn 0) gets the initial scores again, as the release's consensus pipeline copies the scores on a
    mediator line. Per topic one entry per pair of the ``parties``, each holding the topic's consensus (the mean
    over the pairs: an episode keeps no pair's own score), so ``process_scores`` reads back the topic's consensus.

    ``topic_consensus`` is ``{topic: [value after turn t for t = 0..T]}``: an episode summary's
    ``topic_consensus`` (rounded to 6 digits) or, exact, the env's ``tracker.topic_history`` by topic.

    Raises:
        ReleaseLogError: a line's turn has no consensus value, or fewer than two parties.
    """
    if parties < 2:
        raise ReleaseLogError(f"a negotiation has at least two parties, got {parties}")
    pairs = parties * (parties - 1) // 2

    def entry(t: int) -> dict[str, list[dict[str, float]]]:
        try:
            return {
                name: [{"overall_consensus_score": float(series[t])}] * pairs
                for name, series in topic_consensus.items()
            }
        except IndexError:
            raise ReleaseLogError(
                f"a transcript line of turn {t} has no consensus value (the shortest series has "
                f"{min(map(len, topic_consensus.values()))})"
            ) from None

    return [entry(0)] + [entry(int(e["turn"])) for e in transcript]


def write_release_run(
    folder: str | Path,
    topic_consensus: Mapping[str, Sequence[float]],
    transcript: Sequence[Mapping[str, Any]],
    parties: int,
) -> Path:
    """Write an episode as a run of the release in ``folder``: ``conversation.txt``
    (:func:`write_release_conversation`) and ``agreement_scores.json`` (:func:`release_scores`), which
    :func:`read_release_run` and the release's ``scripts/evaluation.py`` read. Returns the conversation's path.
    From an episode summary: ``write_release_run(folder, ep["topic_consensus"], ep["transcript"], ep["parties"])``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    scores = release_scores(topic_consensus, transcript, parties)
    (folder / "agreement_scores.json").write_text(json.dumps(scores), encoding="utf-8")
    return write_release_conversation(transcript, folder / "conversation.txt")


def _behaviour(run: ReleaseRun, key: str) -> float | None:
    if not run.behaviour:
        return None
    vals = []
    for n, entry in enumerate(run.behaviour):
        part = entry.get(key)
        if part == [] or part is None:  # the release's behavior_evaluation.py leaves monitoring/planning empty
            vals.append(0)
        elif isinstance(part, dict):
            vals.append(behaviour_score(part))
        else:
            raise ReleaseLogError(f"behavior_score.json entry {n}: {key!r} must map dimension -> {{score}}")
    return sum(vals) / len(vals)


def release_run_metrics(
    run: ReleaseRun,
    addressed: Mapping[int, Sequence[str]] | None = None,
    mentions: Mapping[str, Iterable[int]] | None = None,
) -> dict[str, Any]:
    """The release's ``results_summary.csv`` figures of ``run``, computed by our metric functions (see the
    module docstring); None where the release prints -1 or an answer it asks GPT-4.1 for is not given."""
    overall = run.scores["overall"]
    med = run.mediator_lines
    turns = [i + 1 for i in med]  # our turn t is the release's line t - 1
    rl = release_response_latencies(overall, turns)
    out: dict[str, Any] = {
        "frequency": release_mediator_frequency(list(run.speakers)),
        "consensus_change": release_consensus_change(overall),
        "success_rate": release_success_rate([run.scores[t] for t in run.topics]),
        "success_rate_max": release_success_rate([run.scores[t] for t in run.topics], use_max=True),
        "latency": sum(rl) / len(rl) if rl else None,
        "mediator_lines": med,
        "intervene_yield": None,
        "intervene_per_step": None,
        "mean_topic_efficiency": None,
        "topic_efficiencies": None,
        "monitoring_score": _behaviour(run, "monitoring"),
        "planning_score": _behaviour(run, "planning"),
        "simple_score": _behaviour(run, "simple"),
    }
    if addressed is not None:
        per_step: list[float | None] = []
        for i in med:
            topics = [t for t in addressed.get(i, ()) if t in run.scores and t != "overall"]
            values = [release_mediator_effectiveness(run.scores[t], i + 1) for t in topics]
            values = [v for v in values if v is not None]
            per_step.append(sum(values) / len(values) if values else None)
        defined = [v for v in per_step if v is not None]
        out["intervene_per_step"] = per_step
        out["intervene_yield"] = sum(defined) / len(defined) if defined else None
    if mentions is not None:
        unknown = sorted(set(mentions) - set(run.topics))
        if unknown:
            raise ReleaseLogError(
                f"mentions name topics {unknown} that agreement_scores.json does not have ({run.topics})"
            )
        tle = [
            release_topic_level_efficiency(run.scores[t], sorted(i + 1 for i in mentions.get(t, ())))
            for t in run.topics
        ]
        out["topic_efficiencies"] = tle
        out["mean_topic_efficiency"] = sum(tle) / len(tle) if tle else None
    return out


__all__ = [
    "ReleaseLogError",
    "ReleaseRun",
    "SUMMARY_MARKER",
    "process_scores",
    "read_release_run",
    "release_lines",
    "release_run_metrics",
    "release_scores",
    "write_release_conversation",
    "write_release_run",
]
