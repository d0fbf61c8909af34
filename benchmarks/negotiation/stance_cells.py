"""The mediator's stance ToM where it is not a copy of what was said: accuracy on unstated and on changing
(party, topic) cells, each beside the prior a predictor reaches with no ToM (issue 38).

A mediator that predicts each party's *stated* stance is right nearly always (the scripted parties keep
what they said): a 95 % ``tom_accuracy`` says nothing about theory of mind. Two restrictions say more:

* **unstated** -- cells whose stance the party had not stated when the mediator predicted (the public
  record's ``stated`` before the turn, rebuilt from the episode's events as the env builds it);
* **changing** -- cells whose true stance changes during the episode (every prediction of such a cell).

Each is scored beside the **prior**: the best fixed guess per (case, party, topic) -- the most frequent
true stance of that cell over every turn of every episode of the row (ties: the lowest option), learned in
hindsight from the cases played, so an upper bound on what a predictor reaches without reading the
conversation -- computed on the *same* cells the mediator predicted (``*_prior``) and on all cells of the
kind (``*_prior_all``, a figure even where the mediator abstains).

Per episode, :func:`episode_cells` stores counts (``episode["tom_cells"]``); :func:`cell_columns` turns a
row's episodes into its columns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

KINDS = ("unstated", "changing")
#: the row columns :func:`cell_columns` adds (percent; ``_n`` cells predicted, ``_cells`` cells of the kind)
COLUMNS = tuple(f"tom_{k}{suffix}" for k in KINDS for suffix in ("", "_prior", "_n", "_cells", "_prior_all"))


def stated_before(
    events: Sequence[dict], options: Sequence[Sequence[str]], topics: Sequence[str], n: int, turns: int
) -> list[np.ndarray]:
    """``stated`` of the public record before each of ``turns`` turn resolutions (resolution ``t`` sees the
    events of turns ``<= t``), rebuilt from the events as the env writes them: an extracted line's
    ``attitudes`` (topic name -> option label), else its ``topic_index`` and ``option``."""
    stated = np.full((n, len(topics)), -1, dtype=np.int64)
    out, i = [], 0
    ordered = sorted(events, key=lambda e: e.get("turn", 0))
    for t in range(turns):
        while i < len(ordered) and ordered[i].get("turn", 0) <= t:
            e = ordered[i]
            i += 1
            if e.get("party") is None:
                continue
            if "attitudes" in e:
                for name, label in e["attitudes"].items():
                    k = list(topics).index(name)
                    stated[e["party"], k] = list(options[k]).index(label)
            elif e.get("option") is not None and e.get("topic_index") is not None:
                k = e["topic_index"]
                stated[e["party"], k] = list(options[k]).index(e["option"])
        out.append(stated.copy())
    return out


def episode_cells(records: Sequence[dict], state: dict[str, Any], scenario: str) -> dict[str, Any]:
    """One episode's counts from the recorder's ``records`` (each turn's true ``stances`` and the
    mediator's ``prediction``) and the env's final public ``state`` (its events): ``truths`` per cell
    ``"party,topic"`` the count of each true option over the turns (the prior's data), and per kind a
    ``{"party,topic": {"option": [cells, predicted, correct]}}`` table."""
    from tom_envs.scoring import NOT_PREDICTED

    resolved = [r for r in records if r.get("stances") is not None]
    truths = [np.asarray(r["stances"]) for r in resolved]
    out: dict[str, Any] = {"scenario": scenario, "truths": {}, **{k: {} for k in KINDS}}
    if not truths:
        return out
    n, m = truths[0].shape
    before = stated_before(state["events"], state["options"], state["topics"], n, len(truths))
    changing = np.array([[len({int(t[i, k]) for t in truths}) > 1 for k in range(m)] for i in range(n)])
    for rec, truth, stated in zip(resolved, truths, before):
        pred = rec.get("prediction")
        pred = pred.get("stances") if isinstance(pred, dict) else pred  # a single target's prediction, or by name
        pred = np.full((n, m), NOT_PREDICTED) if pred is None else np.asarray(pred)
        for i in range(n):
            for k in range(m):
                cell, y = f"{i},{k}", str(int(truth[i, k]))
                out["truths"].setdefault(cell, {}).setdefault(y, 0)
                out["truths"][cell][y] += 1
                kinds = [kind for kind, on in (("unstated", stated[i, k] < 0), ("changing", changing[i, k])) if on]
                for kind in kinds:
                    tally = out[kind].setdefault(cell, {}).setdefault(y, [0, 0, 0])
                    tally[0] += 1
                    if int(pred[i, k]) != NOT_PREDICTED:
                        tally[1] += 1
                        tally[2] += int(pred[i, k]) == int(truth[i, k])
    return out


def prior_guesses(episodes: Sequence[dict]) -> dict[tuple[str, str], int]:
    """(case, cell) -> the most frequent true option of that cell over the episodes (ties: the lowest)."""
    counts: dict[tuple[str, str], Counter] = {}
    for ep in episodes:
        for cell, by in ep["truths"].items():
            counts.setdefault((ep["scenario"], cell), Counter()).update({int(y): c for y, c in by.items()})
    return {key: min(c, key=lambda y: (-c[y], y)) for key, c in counts.items()}


def cell_columns(episodes: Sequence[dict | None]) -> dict[str, Any]:
    """A row's columns (:data:`COLUMNS`) from its episodes' ``tom_cells``: the mediator's accuracy (%) on
    the predicted cells of each kind, the prior's on the same cells and on all of them, and the counts;
    None where there is no cell (or no episode has the counts: records of older code)."""
    have = [e for e in episodes if e]
    if not have:
        return dict.fromkeys(COLUMNS)
    guess = prior_guesses(have)
    row: dict[str, Any] = {}
    for kind in KINDS:
        cells = predicted = correct = prior_hit = prior_all = 0
        for ep in have:
            for cell, by in ep[kind].items():
                g = guess[(ep["scenario"], cell)]
                for y, (c, p, ok) in by.items():
                    cells, predicted, correct = cells + c, predicted + p, correct + ok
                    if int(y) == g:
                        prior_hit, prior_all = prior_hit + p, prior_all + c
        row[f"tom_{kind}"] = 100.0 * correct / predicted if predicted else None
        row[f"tom_{kind}_prior"] = 100.0 * prior_hit / predicted if predicted else None
        row[f"tom_{kind}_n"], row[f"tom_{kind}_cells"] = predicted, cells
        row[f"tom_{kind}_prior_all"] = 100.0 * prior_all / cells if cells else None
    return row


__all__ = ["COLUMNS", "KINDS", "cell_columns", "episode_cells", "prior_guesses", "stated_before"]
