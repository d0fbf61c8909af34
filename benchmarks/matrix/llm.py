"""004's LLM protocol on the matrix games: checkpointed lockstep batches, the wall-clock budget and
the paper's table layouts (used by ``tom-envs matrix --policy llm``, :mod:`benchmarks.matrix.llm_cells`).

* :func:`play_checkpointed` -- a lockstep batch of episodes (one backend call per prompting stage
  over all of them) that journals every finished round to ``<results file>.inflight`` (fsynced), so
  a crash or a kill loses at most the round in flight; the next run replays the journaled rounds
  into fresh envs, puts the policy's slots back (:meth:`~policies.matrix.llm.policy.LLMMatrixPolicy.slot_states`)
  and goes on from there, with results equal to an uninterrupted run. Round logs are stored with
  every prompt once, as a delta (:mod:`benchmarks.records`).
* :func:`parse_duration` -- ``--time-budget`` values (``24h``, ``90m``, ``3600s``, ``3600``).
* :func:`format_protocol_table` -- 004's Table 2 (strategy × game rows: ΔF/T, ΔToM/T, ToM %), Table 3
  and Table 10 (strategy rows × game columns of ΔF/T; Table 10 leads with the model) layouts, with
  model and label-set columns, re-ask and fallback counts, widths fitted to the longest name.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import policy_seeds
from benchmarks.errors import RunnerError
from benchmarks.records import STEPS_FORMAT, PromptEncoder
from benchmarks.results import code_stamp
from benchmarks.runner_episodes import EpisodeResult

__all__ = [
    "FALLBACK_NOTE",
    "retry_note",
    "LAYOUTS",
    "STRATEGY_TITLES",
    "Journal",
    "fallbacks_cell",
    "format_ci",
    "format_protocol_table",
    "parse_duration",
    "play_checkpointed",
]

#: 004's names of the prompting strategies (the tables' row labels).
STRATEGY_TITLES = {
    "lm": "LM",
    "qa": "QA",
    "cot": "CoT",
    "cot3": "CoT + 3-Shot",
    "plans_insights": "Plans + Insights",
    "reflexion": "Reflexion",
    "reflexion1": "Reflexion 1",
    "reflexion2": "Reflexion 2",
    "reflexion3": "Reflexion 3",
    "social_qa": "Social QA",
    "social_lm": "Social LM",
    "s2a": "S2A",
    "s2a_cot": "S2A + CoT",
    "oracle": "Oracle",
    "oracle_max": "Oracle + Max",
    "oracle_max_no_history": "Oracle + Max - History",
    "oracle_max_no_payoffs": "Oracle + Max - Payoffs",
}
#: ``--table`` layouts: ``table4`` is the per-cell layout of 004's Table 4 (every policy kind).
LAYOUTS = ("table4", "table2", "table3", "table10")

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """Seconds in ``24h``, ``90m``, ``3600s`` or ``3600``; raises ``ValueError`` naming the forms."""
    match = _DURATION.match(str(text))
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"expected a positive duration such as 24h, 90m, 3600s or 3600, got {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2).lower()]


# ---------------------------------------------------------------------- the journal of a batch in flight
class Journal:
    """The rounds finished so far by the lockstep batch in flight of one cell, beside its results file.

    Line 1 names the batch (``key``: the cell's key, ``seeds``, ``code``: the code stamp); each further
    line is one finished round of every episode: actions, predictions, the policy's slot states
    after the round, the encoded round logs and the wall time spent so far. A journal of another
    batch, cell or code is set aside (a warning on stderr), a damaged last line is dropped.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path, self.key = Path(path), key
        self.seeds: list[int] | None = None
        self.rounds: list[dict] = []
        self._read()

    def _read(self) -> None:
        if not self.path.exists():
            return
        lines = self.path.read_bytes().split(b"\n")
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = {}
        if header.get("key") != self.key or header.get("code") != code_stamp() or header.get("format") != STEPS_FORMAT:
            print(
                f"warning: {self.path} was written by another cell or version of the code; its rounds are recomputed",
                file=sys.stderr,
            )
            self.remove()
            return
        self.seeds = [int(s) for s in header["seeds"]]
        for raw in lines[1:]:
            try:
                line = json.loads(raw)
            except ValueError:
                break  # a line cut off by the kill: the round in flight
            if line.get("round") != len(self.rounds) + 1:
                break
            self.rounds.append(line)

    def resume(self, seeds: Sequence[int]) -> list[dict]:
        """The finished rounds of the batch ``seeds`` (and the journal rewritten to just them), or []
        (a fresh journal started for it)."""
        if self.seeds == list(seeds) and self.rounds:
            self._write([self._header(seeds), *self.rounds])
            return self.rounds
        self.rounds = []
        self.seeds = list(seeds)
        self._write([self._header(seeds)])
        return []

    def append(self, line: dict) -> None:
        """Append one finished round and sync it to disk."""
        with open(self.path, "ab") as f:
            f.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
        self.rounds.append(line)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
        self.seeds, self.rounds = None, []

    def _header(self, seeds: Sequence[int]) -> dict:
        return {"format": STEPS_FORMAT, "key": self.key, "seeds": list(seeds), "code": code_stamp()}

    def _write(self, lines: list[dict]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            for line in lines:
                f.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def _prediction(value: Any) -> Any:
    return np.asarray(value, dtype=float) if isinstance(value, list) else value


def play_checkpointed(
    envs: Sequence[Any],
    policy: Any,
    seeds: Sequence[int],
    journal: Journal | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_round: Callable[[int], Any] | None = None,
) -> tuple[list[EpisodeResult], float]:
    """Episodes ``seeds`` in lockstep on ``envs`` (ToM recorders, one each) through an LLM matrix
    policy's batched forms, journaling every finished round (see :class:`Journal`); ``on_round(r)``
    is called after each round played or replayed (progress).

    Returns:
        The episodes (``steps``: one encoded log per round, :data:`~benchmarks.records.STEPS_FORMAT`;
        ``policy_stats``: the policy's counters) and the wall time the batch took, resumed rounds included.
    """
    done = journal.resume(seeds) if journal is not None else []
    policy.reset_batch([policy_seeds.policy_seed(s) for s in seeds])  # the run's policy stream, not the env's
    obs, infos = map(list, zip(*(env.reset(seed=s) for env, s in zip(envs, seeds))))
    encoders = [PromptEncoder() for _ in seeds]
    steps: list[list[dict]] = [[] for _ in seeds]
    ended = [False] * len(seeds)
    for line in done:  # replay the journaled rounds into the fresh envs
        for k, env in enumerate(envs):
            env.record_prediction(_prediction(line["predictions"][k]))
            obs[k], _, term, trunc, infos[k] = env.step(int(line["actions"][k]))
            ended[k] = bool(term or trunc)
            encoders[k].absorb(line["logs"][k])
            steps[k].append(line["logs"][k])
        if on_round is not None:
            on_round(line["round"])
    if done:
        policy.restore_slot_states(done[-1]["states"], infos)
    spent = done[-1]["wall_s"] if done else 0.0
    start = clock()
    while not all(ended):
        if any(ended):
            raise RunnerError(
                "episodes of one lockstep batch ended at different rounds; give the cell's episodes one horizon"
            )
        predictions = list(policy.predict_batch(obs, infos))
        actions = [int(a) for a in policy.act_batch(obs, infos)]
        results = []
        for env, prediction, action in zip(envs, predictions, actions):
            env.record_prediction(prediction)
            results.append(env.step(action))
        obs, rewards, terms, truncs, infos = map(list, zip(*results))
        policy.observe_batch(obs, rewards, terms, truncs, infos)
        logs = policy.last_step_log()  # after observe: post-round stages (reflections) included
        coded = [enc.encode(log) for enc, log in zip(encoders, logs)]
        for k, c in enumerate(coded):
            steps[k].append(c)
        ended = [bool(t or u) for t, u in zip(terms, truncs)]
        if journal is not None:
            journal.append(
                {
                    "round": len(steps[0]),
                    "wall_s": spent + clock() - start,
                    "actions": actions,
                    "predictions": [log["prediction"] for log in logs],
                    "states": policy.slot_states(),
                    "logs": coded,
                }
            )
        if on_round is not None:
            on_round(len(steps[0]))
    stats = policy.episode_stats()
    out = [
        EpisodeResult(s, env.episode_summary(), info, st, ps)
        for s, env, info, st, ps in zip(seeds, envs, infos, steps, stats)
    ]
    return out, spent + clock() - start


# ---------------------------------------------------------------------- 004's table layouts
#: The line under a table whose rows hold random fallbacks (each such count is marked ``!``).
FALLBACK_NOTE = (
    "! some decisions of these rows are random fallbacks (the model's replies never parsed within "
    "--max-resamples); their numbers are partly the fallback's, not the model's."
)


def format_ci(m: float | None, ci: float | None, digits: int) -> str:
    """A table cell ``mean ± half-width`` (``n/a`` without a mean)."""
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def retry_note(rows: Sequence[dict]) -> list[str]:
    """A line saying how many server retries the rows' episodes needed, by cause (none when they needed none)."""
    total = sum(int(r.get("llm_retries") or 0) for r in rows)
    if not total:
        return []
    from policies.llm.caller import FAULT_COUNTERS

    causes = ", ".join(
        f"{n} {k.removeprefix('llm_')}" for k in FAULT_COUNTERS[1:] if (n := sum(int(r.get(k) or 0) for r in rows))
    )
    return [
        f"Server retries: {total} ({causes}); every record holds a served reply (llm_faults per episode, "
        "llm_retries... in the JSON rows)."
    ]


def fallbacks_cell(n: Any) -> str:
    """A fallback count, marked ``!`` when there are any (see :data:`FALLBACK_NOTE`)."""
    return f"{n}{'!' if n else ''}"


def _label(row: dict) -> str:
    strategy = row.get("strategy")
    if strategy is None:
        return row["policy"].capitalize() if row["policy"] in ("tabular", "random", "oracle") else row["policy"]
    return STRATEGY_TITLES.get(strategy, strategy)


def _render(header: Sequence[str], body: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    head = fmt(header)
    return [head, "-" * len(head), *(fmt(r) for r in body)]


def format_protocol_table(rows: Sequence[dict], layout: str = "table2") -> str:
    """Rows in one of 004's layouts (:data:`LAYOUTS` but ``table4``).

    * ``table2``: one line per (model, label set, partners, game, strategy): ΔF/T, ΔToM/T, ToM %;
    * ``table3``: one line per (partners, model, label set, strategy), one ΔF/T column per game;
    * ``table10``: as ``table3``, ordered by model first (004's Table 10 compares models).

    Every line carries the episodes, re-asks and random fallbacks behind it; a line with fallbacks is
    marked ``!`` (its decisions were partly random, not the model's). Column widths fit the longest
    entry, so long strategy and model names keep the columns aligned.
    """
    if layout not in LAYOUTS[1:]:
        raise RunnerError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    lines: list[str] = []
    if layout == "table2":
        header = [
            "model",
            "labels",
            "partners",
            "game",
            "prompting",
            "ΔFunctional/T",
            "ΔToM/T",
            "ToM %",
            "episodes",
            "re-asks",
            "fallbacks",
        ]
        right = [False] * 5 + [True] * 6
        games = {g: i for i, g in enumerate(dict.fromkeys(r["game"] for r in rows))}  # 004: RPS, IBS, IPD as run
        order = sorted(
            rows, key=lambda r: (r.get("model") or "", r.get("label_set") or "", r["partners"], games[r["game"]])
        )
        body = [
            [
                r.get("model") or "N/A",
                r.get("label_set") or "N/A",
                r["partners"],
                r["game"],
                _label(r),
                format_ci(r["regret_per_step"], r["regret_per_step_ci"], 3),
                format_ci(r["tom_regret_per_step"], r["tom_regret_per_step_ci"], 3),
                format_ci(r["tom_accuracy"], r["tom_accuracy_ci"], 1),
                str(r["episodes"]),
                str(r.get("reasks", 0)),
                fallbacks_cell(r.get("fallbacks", 0)),
            ]
            for r in order
        ]
        lines += _render(header, body, right)
    else:
        games = list(dict.fromkeys(r["game"] for r in rows))
        groups: dict[tuple, dict[str, dict]] = {}
        for r in rows:
            groups.setdefault((r["partners"], r.get("model") or "N/A", r.get("label_set") or "N/A", _label(r)), {})[
                r["game"]
            ] = r
        keys = list(groups)
        if layout == "table10":
            keys.sort(key=lambda k: (k[0], k[1]))
        header = ["partners", "model", "labels", "prompting", *games, "episodes", "re-asks", "fallbacks"]
        right = [False] * 4 + [True] * (len(games) + 3)
        body = []
        for key in keys:
            cells = groups[key]
            got = list(cells.values())
            fallbacks = sum(r.get("fallbacks", 0) for r in got)
            body.append(
                [
                    *key,
                    *(
                        format_ci(cells[g]["regret_per_step"], cells[g]["regret_per_step_ci"], 3) if g in cells else ""
                        for g in games
                    ),
                    "/".join(str(cells[g]["episodes"]) for g in games if g in cells),
                    str(sum(r.get("reasks", 0) for r in got)),
                    fallbacks_cell(fallbacks),
                ]
            )
        lines += _render(header, body, right)
        lines.append("Cells: ΔFunctional/T, mean ± 95% CI over episodes.")
    if any(r.get("fallbacks") for r in rows):
        lines.append(FALLBACK_NOTE)
    lines += retry_note(rows)
    llm = [r for r in rows if r.get("strategy")]
    windows = sorted({r.get("history_window") for r in llm}, key=lambda w: -1 if w is None else w)
    scorings = sorted({r["scoring"] for r in llm if r.get("scoring")})
    if llm:
        shown = " / ".join("all rounds" if w is None else f"the latest {w} rounds" for w in windows)
        lines.append(
            f"History in prompts: {shown}."
            + (f" LM label scoring: {' / '.join(scorings)} of token log-probabilities." if scorings else "")
        )
    responses = sorted({r.get("tom_response") for r in rows if r.get("tom_response")})
    if responses and layout == "table2":
        lines.append(f"ΔToM/T: the {' / '.join(responses)} response (docs/architecture.md, 'Metric definitions').")
    return "\n".join(lines)
