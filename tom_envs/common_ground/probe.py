"""A counting probe for ``tom/CommonToM-v2`` (the information rule, issue 24).

Plays every conversation of a split several times (other seeds) the way a cheating agent with memory
would, and records for each question asked everything the env returned with it -- the observation,
the info, the reward, the step index -- plus what an agent that counts can derive from the sequence:
the questions asked since the sentence began (position in the turn), those about the same event so
far (position in the group), how many events the turn has shown so far, the size of the previous
turn and of the same event's previous group; and what the whole episode's sequence shows (each
group's and each sentence's size, the questions left in the group), which an agent knows once it
has seen the conversation's sequence (an earlier play, or a first pass over its observations, as the
two-pass LLM benchmarks make). Then it fits value -> answer tables (one feature, or a pair) on held-out sentences
and compares the best such table with the same probe reading only the question (its order, speaker
chain and certainty). Both are scored on the scored questions (the release's), as the benchmark is.

Run it on the release (the figures of docs/common_ground.md)::

    python -m tom_envs.common_ground.probe --data-dir path/to/common-tom/data --split test
    python -m tom_envs.common_ground.probe --data-dir path/to/common-tom/data --split test --no-fillers  # v1

The held-out unit is a sentence (all its questions, in every repeat, fall on one side).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from itertools import combinations
from typing import Any, Hashable, Sequence

import numpy as np

from tom_envs.checks import flatten

#: What the question itself says: the features of the question-only probe.
QUESTION_FEATURES = ("q.order", "q.chain", "q.certainty")
#: Features with more distinct values than this are probed alone, never in pairs (texts, ids).
PAIR_CARDINALITY = 400
#: Text features (unique per question or sentence): probed alone only.
TEXTS = ("obs.text", "obs.context", "obs.question", "obs.choices", "info.shown.question")


def rows(env: Any, repeats: int = 4, seed: int = 0) -> list[dict[str, Any]]:
    """One row per question asked: ``x`` (every feature), ``y`` (its answer), ``scored``, ``unit``
    (conversation, sentence). ``env`` is a :class:`~tom_envs.common_ground.env.CommonToMEnv`."""
    from tom_envs.common_ground.questions import parse_question

    base = getattr(env, "unwrapped", env)
    out = []
    for r in range(repeats):
        for e, cid in enumerate(base.cids):
            obs, info = env.reset(seed=seed + 1000 * r + e, options={"cid": cid})
            reward: Any = None
            step, turn, rank, turns_seen = 0, None, 0, 0
            group_pos: Counter = Counter()  # questions about each event so far in this turn
            last_group_size: dict[Any, int] = {}  # event -> size of its group at its previous sentence
            prev_turn_size = 0
            turn_groups: Counter = Counter()
            done, play = False, []
            while not done:
                shown = info.get("shown", info) if info.get("describes") == "answered" else info
                if obs["turn"] != turn:
                    if turn is not None:
                        prev_turn_size = rank + 1
                        last_group_size.update(turn_groups)
                    turn, rank, turns_seen = obs["turn"], 0, turns_seen + 1
                    group_pos, turn_groups = Counter(), Counter()
                else:
                    rank += 1
                event = shown.get("eno")
                x: dict[str, Hashable] = {
                    "step": step,
                    "reward": reward,
                    "c.rank_in_turn": rank,
                    "c.rank_in_group": group_pos[event],
                    "c.groups_in_turn": len(group_pos) + (event not in group_pos),
                    "c.turns_seen": turns_seen,
                    "c.prev_turn_size": prev_turn_size,
                    "c.prev_group_size": last_group_size.get(event),
                }
                flatten("obs", obs, x)
                flatten("info", info, x)
                parsed = parse_question(obs["question"])
                x.update({"q.order": parsed.order, "q.chain": parsed.chain[0], "q.certainty": parsed.certainty})
                item, truth = base.current_item, base.current_answer  # the judge's view (fillers have no tom_truth)
                group_pos[event] += 1
                turn_groups[event] += 1
                obs, reward, done, _, info = env.step(0)
                play.append(
                    {"x": x, "y": truth, "scored": item.scored, "unit": (cid, item.turn), "group": (item.turn, event)}
                )
                step += 1
            # what the whole episode's sequence shows (an agent that saw it once, e.g. an earlier play of
            # the same conversation or a first pass over its observations, knows it before answering)
            groups = Counter(row["group"] for row in play)
            turns = Counter(row["group"][0] for row in play)
            events = defaultdict(set)
            for row in play:
                events[row["group"][0]].add(row["group"][1])
            seen: Counter = Counter()
            for row in play:
                seen[row["group"]] += 1
                row["x"].update(
                    {
                        "seq.group_size": groups[row["group"]],
                        "seq.turn_size": turns[row["group"][0]],
                        "seq.groups_in_turn": len(events[row["group"][0]]),
                        "seq.left_in_group": groups[row["group"]] - seen[row["group"]],
                    }
                )
            out += play
    return out


class Columns:
    """The rows' features as integer codes (one array per feature; pairs combined on demand), so that a
    value -> answer table is two ``bincount`` calls."""

    def __init__(self, data: list[dict]) -> None:
        self.y = np.array([r["y"] for r in data], dtype=np.int64)
        self.k = int(self.y.max()) + 1 if len(self.y) else 1
        units = sorted({r["unit"] for r in data})
        index = {u: i for i, u in enumerate(units)}
        self.unit = np.array([index[r["unit"]] for r in data], dtype=np.int64)
        self.n_units = len(units)
        self.codes: dict[str, np.ndarray] = {}
        for path in sorted({p for r in data for p in r["x"]}):
            seen: dict[Hashable, int] = {}
            self.codes[path] = np.array([seen.setdefault(r["x"].get(path), len(seen)) for r in data], dtype=np.int64)

    def code(self, path: Any) -> np.ndarray:
        if path == "":
            return np.zeros(len(self.y), dtype=np.int64)
        if isinstance(path, tuple):
            a, b = (self.codes[p] for p in path)
            return a * (int(b.max()) + 1) + b
        return self.codes[path]

    def fit(self, code: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, int]:
        """Majority answer per value (ties: the lower answer) over ``idx``; -1 for unseen values."""
        size = int(code.max()) + 1
        counts = np.bincount(code[idx] * self.k + self.y[idx], minlength=size * self.k).reshape(size, self.k)
        table = np.where(counts.sum(axis=1) > 0, counts.argmax(axis=1), -1)
        return table, int(np.bincount(self.y[idx], minlength=self.k).argmax())

    def score(self, code: np.ndarray, model: tuple[np.ndarray, int], idx: np.ndarray) -> float:
        table, default = model
        guess = table[code[idx]]
        guess = np.where(guess < 0, default, guess)
        return float(np.mean(guess == self.y[idx]))


def _halves(cols: Columns, idx: np.ndarray, seed: int, folds: int = 2) -> list[np.ndarray]:
    """``idx`` cut into ``folds`` parts that share no unit (sentence)."""
    units = np.unique(cols.unit[idx])
    order = np.random.default_rng(seed).permutation(len(units))
    part = np.empty(cols.n_units, dtype=np.int64)
    part[units[order]] = np.arange(len(units)) % folds
    return [idx[part[cols.unit[idx]] == f] for f in range(folds)]


def candidates(cols: Columns, idx: np.ndarray, features: Sequence[str] | None) -> list[Any]:
    """The features (or pairs) a probe may key its table on: ``features`` (None: every one)."""
    paths = sorted(cols.codes) if features is None else list(features)
    distinct = {p: len(np.unique(cols.codes[p][idx])) for p in paths}
    paths = [p for p in paths if distinct[p] > 1]
    small = [p for p in paths if distinct[p] <= PAIR_CARDINALITY and not p.startswith(TEXTS)]
    return [""] + paths + list(combinations(small, 2))


def best_probe(
    cols: Columns, train: np.ndarray, test: np.ndarray, features: Sequence[str] | None, folds: int = 4
) -> dict[str, Any]:
    """The table chosen on ``train`` alone (``folds``-fold cross-validation over its sentences),
    refitted on ``train`` and scored on ``test``."""
    parts = _halves(cols, train, seed=1, folds=folds)
    best, best_cv = "", -1.0
    for path in candidates(cols, train, features):
        code = cols.code(path)
        cv = float(
            np.mean(
                [
                    cols.score(code, cols.fit(code, np.concatenate(parts[:f] + parts[f + 1 :])), parts[f])
                    for f in range(folds)
                ]
            )
        )
        if cv > best_cv + 1e-12:
            best, best_cv = path, cv
    code = cols.code(best)
    return {"feature": best, "accuracy": cols.score(code, cols.fit(code, train), test)}


def report(data: list[dict], splits: int = 10) -> dict[str, Any]:
    """Held-out accuracy of the best table reading everything and of the best reading only the
    question, on the scored questions, averaged over ``splits`` random halvings of the sentences."""
    scored = [r for r in data if r["scored"]]
    cols = Columns(scored)
    everything, question, majority, picked = [], [], [], []
    for s in range(splits):
        train, test = _halves(cols, np.arange(len(scored)), seed=100 + s)
        full = best_probe(cols, train, test, None)
        q = best_probe(cols, train, test, QUESTION_FEATURES)
        everything.append(full["accuracy"])
        question.append(q["accuracy"])
        picked.append([str(full["feature"]), str(q["feature"])])
        majority.append(cols.score(cols.code(""), cols.fit(cols.code(""), train), test))
    gains = np.array(everything) - np.array(question)
    return {
        "everything": float(np.mean(everything)),
        "question_only": float(np.mean(question)),
        "gain": float(np.mean(gains)),
        "gain_sd": float(np.std(gains, ddof=1)) if len(gains) > 1 else 0.0,
        "majority": float(np.mean(majority)),
        "per_split": {"everything": everything, "question_only": question},
        "features": picked,
        "scored_questions": len({(r["unit"], r["x"]["obs.question"]) for r in scored}),
        "asked_per_play": len(data),
        "sentences": cols.n_units,
    }


def main(argv: Sequence[str] | None = None) -> int:
    from tom_envs.common_ground.env import CommonToMEnv

    parser = argparse.ArgumentParser(
        prog="python -m tom_envs.common_ground.probe", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", default=None, help="the release's data/ folder (default: bundled sample)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--repeats", type=int, default=4, help="plays per conversation (other seeds)")
    parser.add_argument("--splits", type=int, default=10, help="random halvings of the sentences")
    parser.add_argument("--no-fillers", action="store_true", help="ask the scored questions alone (v1's sequence)")
    parser.add_argument("--context", default="online")
    args = parser.parse_args(argv)
    env = CommonToMEnv(data_dir=args.data_dir, split=args.split, context=args.context, fillers=not args.no_fillers)
    data = rows(env, args.repeats)
    out = report(data, args.splits)
    out["asked_per_play"] = len(data) // args.repeats
    out["fillers"] = not args.no_fillers
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
