"""The learned v3 reader: the reader of live persuasion v3 (issue 39, docs/reader_v3.md).

:class:`LearnedReaderV3` reads a line the way :class:`~tom_envs.persuasion.reader_v3.ReaderV3` does
(``read(utterance, goal) -> ReadingV3``) with two multinomial logistic regressions over the features of
:mod:`~tom_envs.persuasion.reader_v3_features` (hashed word and character n-grams plus the scripted reader's
evidence): a *reading* head over the nine reading classes (a pitch by its principle, else the kind) and a *concern*
head over the five concerns and ``none``. Hostile wins, and it is safe by construction: the line reads as hostile
when the scripted reader's hostility frames find hostility **or** the reading head gives hostile at least the
probability ``hostile_threshold``. A hostile line carries no concern.

The weights (``reader_v3_weights.npz`` beside this module, read with numpy only) are rebuilt bit for bit from the
training set by ``python -m benchmarks.persuasion.reader_v3_train``. :func:`make_reader_v3` names both readers.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.reader_v3 import CONCERN_CLASSES, READING_CLASSES, ReaderV3, ReadingV3, check_read_arguments
from tom_envs.persuasion.reader_v3_features import SCRIPTED, FeatureSettings, featurise

WEIGHTS = Path(__file__).resolve().parent / "reader_v3_weights.npz"
_REBUILD = "rebuild it with `python -m benchmarks.persuasion.reader_v3_train`"
#: the readers :func:`make_reader_v3` builds, by name
READERS_V3: tuple[str, ...] = ("learned", "scripted")


class ReaderWeightsError(TomEnvsError, ValueError):
    """The learned reader's weights file is missing or not one the reader can read."""


class UnknownReaderError(TomEnvsError, ValueError):
    """:func:`make_reader_v3` was asked for a reader it does not know."""


def _meta(data: Any, path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(str(data["meta"]))
        FeatureSettings(**meta["features"])
    except (KeyError, TypeError, ValueError) as e:
        raise ReaderWeightsError(f"{path}: no readable 'meta' entry ({e}); {_REBUILD}.") from None
    return meta


@lru_cache(maxsize=4)
def load_weights(path: str | Path = WEIGHTS) -> dict[str, Any]:
    """The weights and settings in ``path`` (cached per path): ``settings``, ``meta`` and for each head
    (``reading``, ``concern``) its classes, ``W`` (classes x features) and ``b``.

    Raises:
        ReaderWeightsError: the file is missing, not an npz of the trainer's layout, or of other classes.
    """
    path = Path(path)
    if not path.is_file():
        raise ReaderWeightsError(f"{path}: no such weights file; {_REBUILD}.")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ReaderWeightsError(f"{path}: not a numpy .npz file ({e}); {_REBUILD}.") from None
    with data:
        meta = _meta(data, path)
        settings = FeatureSettings(**meta["features"])
        heads = {}
        for head, classes in (("reading", READING_CLASSES), ("concern", CONCERN_CLASSES)):
            if tuple(meta.get(f"{head}_classes", ())) != classes:
                raise ReaderWeightsError(f"{path}: the {head} head's classes are not {classes}; {_REBUILD}.")
            try:
                w, b = data[f"{head}_W"].astype(np.float64), data[f"{head}_b"].astype(np.float64)
            except KeyError:
                raise ReaderWeightsError(f"{path}: no {head}_W/{head}_b arrays; {_REBUILD}.") from None
            if w.shape != (len(classes), settings.size) or b.shape != (len(classes),):
                raise ReaderWeightsError(
                    f"{path}: {head}_W is {w.shape}, expected {(len(classes), settings.size)}; {_REBUILD}."
                )
            heads[head] = {"classes": classes, "W": w, "b": b}
    return {"settings": settings, "meta": meta, **heads}


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


class LearnedReaderV3:
    """The learned v3 reader (see the module docstring): ``read(utterance, goal) -> ReadingV3``.

    Args:
        weights: the weights file (default: the committed ``reader_v3_weights.npz``).

    Deterministic and pure: the same line and goal always read the same.
    """

    name = "learned-v3"

    def __init__(self, weights: str | Path = WEIGHTS) -> None:
        self._weights = load_weights(Path(weights))
        self._settings: FeatureSettings = self._weights["settings"]
        self.hostile_threshold = float(self._weights["meta"]["hostile_threshold"])
        self._scripted = ReaderV3()

    def _probabilities(self, text: str, evidence: dict[str, Any]) -> dict[str, dict[str, float]]:
        vector = featurise(text, evidence, self._settings)
        slots = np.fromiter(vector.keys(), dtype=np.int64, count=len(vector))
        values = np.fromiter(vector.values(), dtype=np.float64, count=len(vector))
        out = {}
        for head in ("reading", "concern"):
            h = self._weights[head]
            p = _softmax(h["W"][:, slots] @ values + h["b"])
            out[head] = dict(zip(h["classes"], p.tolist()))
        return out

    def explain(self, utterance: str, goal: str | None = None) -> dict[str, Any]:
        """The evidence behind :meth:`read`: the scripted reader's (``scripted``), the two heads'
        probabilities (``reading``, ``concern``) and whether hostility came from the frames or the head."""
        check_read_arguments(utterance, goal)
        text = utterance
        if goal and goal.strip():  # the request itself is no reason
            text = re.sub(re.escape(goal.strip().rstrip(".!")), "it", text, flags=re.IGNORECASE)
        evidence = self._scripted.explain(text)
        probs = self._probabilities(text, evidence)
        return {
            "scripted": evidence,
            **probs,
            "hostile_by_frames": bool(evidence["hostile"]),
            "hostile_by_head": probs["reading"]["hostile"] >= self.hostile_threshold,
        }

    def read(self, utterance: str, goal: str | None = None) -> ReadingV3:
        """The reading of one line (the persuadee hears ``goal``'s own words as no reason).

        Raises:
            ReaderV3Error: ``utterance`` (or ``goal``) is not a str.
        """
        if isinstance(utterance, str) and not utterance.strip():
            return ReadingV3("nothing")
        ev = self.explain(utterance, goal)
        if ev["hostile_by_frames"] or ev["hostile_by_head"]:
            return ReadingV3("hostile")
        reading = ev["reading"]
        label = max((c for c in READING_CLASSES if c != "hostile"), key=reading.__getitem__)
        concern = max(CONCERN_CLASSES, key=ev["concern"].__getitem__)
        concern = None if concern == "none" else concern
        if label in ("nothing", "stuffed"):
            return ReadingV3(label, None, concern)
        return ReadingV3("pitch", label, concern)


def make_reader_v3(name: str = "learned") -> LearnedReaderV3 | ReaderV3:
    """The v3 reader called ``name``: ``"learned"`` (:class:`LearnedReaderV3`, the default: the reader of v3) or
    ``"scripted"`` (:class:`~tom_envs.persuasion.reader_v3.ReaderV3`, kept for comparison).

    Raises:
        UnknownReaderError: ``name`` is neither (the message lists the names).
    """
    if name == "learned":
        return LearnedReaderV3()
    if name == "scripted":
        return ReaderV3()
    raise UnknownReaderError(f"unknown v3 reader {name!r}; pass one of {READERS_V3}.")


__all__ = [
    "LearnedReaderV3",
    "READERS_V3",
    "ReaderWeightsError",
    "SCRIPTED",
    "UnknownReaderError",
    "WEIGHTS",
    "load_weights",
    "make_reader_v3",
]
