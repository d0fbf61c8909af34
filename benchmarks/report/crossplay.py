"""The report's crossplay section: ``tom-envs crossplay``'s records (``<results>/crossplay/*.jsonl``), per env id
a heatmap of the outcome and one of literal ToM over the ordered pairings, the OpenSkill rating table, the rank
agreement of two disjoint seed sets, and the predicting agents on the literal-vs-functional plane
(docs/crossplay.md). Every figure is computed from the records by :mod:`benchmarks.crossplay_stats`, the
functions the command prints with."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.load import FamilyData
from benchmarks.report.parts import drawn_figure, figure_block, section_of

#: The results folder ``tom-envs crossplay`` writes (``benchmarks.crossplay.FOLDER``).
FOLDER = "crossplay"
#: The section's opening paragraph.
INTRO = (
    "A population plays every ordered pairing on each two-seat env (`tom-envs crossplay`, docs/crossplay.md): "
    "the row agent in the first seat, the column agent in the second (where the seats differ, each agent plays "
    "its own seat: the first seat's agents down, the second seat's across). Outcome: each seat's return (what "
    "it counts for each id: docs/crossplay.md). "
    "ToM: the % of an agent's predictions of the other seat that were right (its next action, or its hidden "
    "state where the env scores that); agents that make no prediction have none. Ratings: OpenSkill's Plackett-Luce model over every episode (self-play "
    "left out), with their uncertainty sigma."
)
#: The title and caption of the literal-vs-functional figure.
PLANE_TITLE = "Crossplay populations: literal vs functional ToM"
PLANE_CAPTION = (
    "The agents that predict: ToM % (x) against their mean return over every pairing (y), 95 % CIs over episodes."
)


def _records(fam: FamilyData) -> dict[str, list[dict]]:
    """The crossplay records by env id (records of another shape are left out). Episodes of different lengths
    are never pooled: an id played at more than one horizon is one population per horizon, named
    ``<env id> (horizon T)``."""
    found: dict[tuple[str, Any], list[dict]] = {}
    for f in fam.files:
        for rec in f.records:
            try:
                env_id = rec["cell"]["env_id"]
                rec["cell"]["row"]["name"], rec["cell"]["col"]["name"]
                if len(rec["episode"]["returns"]) != 2 or len(rec["episode"]["tom"]) != 2:
                    continue
            except (KeyError, TypeError):
                continue
            found.setdefault((str(env_id), rec["cell"].get("horizon")), []).append(rec)
    horizons: dict[str, int] = {}
    for env_id, _ in found:
        horizons[env_id] = horizons.get(env_id, 0) + 1
    return {
        (env_id if horizons[env_id] == 1 else f"{env_id} (horizon {horizon})"): _distinct_agents(recs)
        for (env_id, horizon), recs in found.items()
    }


def _distinct_agents(records: list[dict]) -> list[dict]:
    """The records with each agent that plays under more than one identity (a learner retrained under a new
    model key, an LLM of another engine) named apart, ``<name> [<identity hash>]``, so two players are never
    rated as one. The records are copied before a name changes."""
    seen: dict[str, set[str]] = {}
    for rec in records:
        for side in ("row", "col"):
            who = rec["cell"][side]
            seen.setdefault(who["name"], set()).add(json.dumps(who.get("identity"), sort_keys=True))
    if all(len(v) == 1 for v in seen.values()):
        return records
    out = []
    for rec in records:
        cell = dict(rec["cell"])
        for side in ("row", "col"):
            who = cell[side]
            if len(seen[who["name"]]) > 1:
                tag = hashlib.sha256(json.dumps(who.get("identity"), sort_keys=True).encode()).hexdigest()[:6]
                cell[side] = {**who, "name": f"{who['name']} [{tag}]"}
        out.append({**rec, "cell": cell})
    return out


def _slug(env_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in env_id)


def heatmap(
    path: Path,
    title: str,
    agents: Sequence[str],
    values: dict[tuple[str, str], float | None],
    label: str,
    cols: Sequence[str] | None = None,
    seats: Sequence[str] = (),
) -> Path:
    """A rows-by-columns heatmap (row agent in the first seat; ``cols``: the second seat's agents where they
    differ from the rows, a seated game), each cell annotated; empty cells (None) grey. Writes
    ``<name>.figure.json`` beside it: the agents (``cols`` too when given) and the values drawn."""
    import numpy as np

    from benchmarks.report.figures import pyplot, audit_path

    plt = pyplot()
    columns = list(agents) if cols is None else list(cols)
    n, k = len(agents), len(columns)
    grid = np.full((n, k), np.nan)
    for i, r in enumerate(agents):
        for j, c in enumerate(columns):
            v = values.get((r, c))
            if v is not None:
                grid[i, j] = v
    size = max(4.0, 0.55 * max(n, k) + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    cmap = plt.get_cmap("viridis").with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, aspect="equal")
    ax.set_xticks(range(k), columns, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), agents, fontsize=8)
    first, second = (f" ({seats[0]})", f" ({seats[1]})") if len(seats) == 2 else ("", "")
    ax.set_xlabel(f"column agent (second seat{second})")
    ax.set_ylabel(f"row agent (first seat{first})")
    ax.set_title(title, fontsize=10)
    for i in range(n):
        for j in range(k):
            if not np.isnan(grid[i, j]):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.0f}" if abs(grid[i, j]) >= 10 else f"{grid[i, j]:.1f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if grid[i, j] < np.nanmean(grid) else "black",
                )
    fig.colorbar(image, ax=ax, label=label, shrink=0.8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    audit = {
        "kind": "heatmap",
        "title": title,
        "label": label,
        "agents": list(agents),
        **({"cols": columns} if cols is not None else {}),
        "values": [[None if np.isnan(v) else float(v) for v in row] for row in grid],
        "panels": [],
    }
    audit_path(path).write_text(json.dumps(audit), encoding="utf-8")
    return path


def _env_blocks(
    env_id: str, recs: list[dict], out: Path, root: Path
) -> tuple[list[dict], list[str], dict | None, dict]:
    from benchmarks.crossplay_stats import (
        agent_names,
        agreement_row,
        agreement_text,
        pairing_rows,
        rating_label,
        rating_rows,
        seat_of,
    )

    agents = agent_names(recs)
    pairs = pairing_rows(env_id, recs)
    seated = seat_of(recs)
    cols: list[str] | None = None
    seats: list[str] = []
    if seated:  # a seated game: the first seat's agents down, the second seat's across
        seats = list(recs[0]["cell"].get("seats", []))
        cols = [a for a in agents if seated.get(a) != seats[0]] if seats else None
        agents = [a for a in agents if seats and seated.get(a) == seats[0]]
    blocks: list[dict[str, Any]] = [{"kind": "h3", "text": env_id, "id": f"crossplay-{_slug(env_id)}"}]
    written: list[str] = []
    for key, label, name in (
        ("row_return", "row agent's mean return", "outcome"),
        ("row_tom", "row agent's ToM % (grey: makes no prediction)", "tom"),
    ):
        path = heatmap(
            out / f"{_slug(env_id)}_{name}.png",
            f"{env_id}: {label}",
            agents,
            {(p["row"], p["col"]): p[key] for p in pairs},
            label,
            cols,
            seats,
        )
        blocks.append(
            figure_block(
                path,
                (
                    f"{env_id}, {pairs[0]['episodes'] if pairs else 0} episodes per ordered pairing: the {label} "
                    "against each column agent (means over episodes; the table below has the 95 % CIs)."
                ),
                written,
                root,
            )
        )
    blocks.append(
        {
            "kind": "table",
            "caption": f"{env_id}: every ordered pairing (mean ± 95 % CI over episodes)",
            "columns": ["row", "col", "episodes", "row return", "col return", "row ToM %", "col ToM %"],
            "rows": [
                {
                    "cells": [
                        p["row"],
                        p["col"],
                        str(p["episodes"]),
                        _num(p["row_return"], p["row_return_ci"]),
                        _num(p["col_return"], p["col_return_ci"]),
                        _num(p["row_tom"], p["row_tom_ci"]),
                        _num(p["col_tom"], p["col_tom_ci"]),
                    ]
                }
                for p in pairs
            ],
        }
    )
    ratings = rating_rows(env_id, recs)
    won = (
        "the match scores its records hold (docs/crossplay.md), each agent ranked in its own seat"
        if seated
        else "the higher return"
    )
    blocks.append(
        {
            "kind": "table",
            "caption": f"{env_id}: OpenSkill (Plackett-Luce) ratings, a match won by {won}",
            "columns": [
                "rank",
                "agent",
                "kind",
                "seat (rank in it)",
                "mu",
                "sigma",
                "ordinal (mu - 3 sigma)",
                "ToM %",
                "return",
            ],
            "rows": [
                {
                    "cells": [
                        *rating_label(r, "either"),
                        f"{r['mu']:.2f}",
                        f"{r['sigma']:.2f}",
                        f"{r['ordinal']:.2f}",
                        _num(r["tom"], r["tom_ci"]),
                        _num(r["return"], r["return_ci"]),
                    ]
                }
                for r in ratings
            ],
        }
    )
    agree = agreement_row(env_id, recs)
    rho = agree["spearman"]
    text = (
        f"Rank agreement: ratings from seeds {_span(agree['seeds_a'])} and from seeds {_span(agree['seeds_b'])} "
        f"(disjoint), {agree['agents']} agents: Spearman rank correlation "
        + ("n/a (fewer than two seeds, or a half rates every agent alike)" if rho is None else f"{rho:.3f}")
        + "."
    )
    if agree.get("left_out"):
        text += (
            " Left out of the agreement, for fewer episodes than the rest of the population (rated above all the same): "
            + ", ".join(f"{name} ({n} seed{'s' if n != 1 else ''})" for name, n in agree["left_out"].items())
            + "."
        )
    if agree.get("spearman_by_seat") or "win_share_spearman" in agree:
        text += (
            f" ({agreement_text(agree)}; a win share counts every match alike, the ratings weigh each half's first "
            "seeds most, while sigma is large.)"
        )
    if "with_all" in agree:
        text += " " + with_all_text(agree["with_all"])
    blocks.append({"kind": "p", "text": text})
    points = [
        {
            "agent": r["agent"],
            "variant": env_id,
            "x": r["tom"],
            "xci": r["tom_ci"],
            "y": r["return"],
            "yci": r["return_ci"],
        }
        for r in ratings
        if r["tom"] is not None and r["return"] is not None
    ]
    panel = (
        {
            "title": f"{env_id}: crossplay population",
            "xlabel": "ToM % (predictions of the other seat)",
            "ylabel": "mean return over every pairing",
            "xlim": (0, 100),
            "points": points,
        }
        if points
        else None
    )
    return blocks, written, panel, agree


def with_all_text(every: Mapping[str, Any]) -> str:
    """The sentence on an agreement row's ``with_all`` (:func:`benchmarks.crossplay_stats.agreement_row`)."""
    from benchmarks.crossplay_stats import WITH_ALL_SEEDS, agreement_text

    if every["spearman"] is None and "mu_a" not in every:
        return (
            f"With them back in: not computed, since the {every['agents']} agents' pairings share "
            f"{every['seeds']} seed{'s' if every['seeds'] != 1 else ''} (it needs {WITH_ALL_SEEDS})."
        )
    text = (
        f"With them back in, on the {every['seeds']} seeds every pairing of theirs has played (seeds "
        f"{_span(every['seeds_a'])} against {_span(every['seeds_b'])}), {every['agents']} agents: "
        f"{agreement_text(every)}."
    )
    if every.get("left_out"):
        text += (
            f" Still left out, with fewer than {WITH_ALL_SEEDS} seeds: "
            + ", ".join(f"{name} ({n})" for name, n in every["left_out"].items())
            + "."
        )
    return text


def agreement_table(agreements: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The section's closing table: per id, the rank agreement of the population and, where agents were left out
    of it for fewer episodes, of every agent on the seeds they all share (``with_all``)."""

    def rho(value: Any) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    def seats(by_seat: Any) -> str:
        return ", ".join(f"{seat} {rho(v)}" for seat, v in by_seat.items()) if by_seat else "-"

    rows = []
    for a in agreements:
        every = a.get("with_all")
        rows.append(
            {
                "cells": [
                    a["env_id"],
                    str(a["agents"]),
                    f"{_span(a['seeds_a'])} / {_span(a['seeds_b'])}",
                    rho(a["spearman"]),
                    seats(a.get("spearman_by_seat")),
                    rho(a.get("win_share_spearman")),
                    ", ".join(a.get("left_out", {})) or "-",
                    "-" if every is None else str(every["agents"]),
                    "-" if every is None else _halves(every),
                    "-" if every is None else rho(every["spearman"]),
                    "-" if every is None else seats(every.get("spearman_by_seat")),
                ]
            }
        )
    return {
        "kind": "table",
        "caption": (
            "Rank agreement per id: Spearman of the OpenSkill mu from two disjoint seed halves, over the agents "
            "that played every seed, and over every agent (those left out included) on the seeds all their "
            "pairings share"
        ),
        "columns": [
            "id",
            "agents",
            "seeds",
            "Spearman",
            "within a seat",
            "win shares",
            "left out (fewer episodes)",
            "all: agents",
            "all: seeds",
            "all: Spearman",
            "all: within a seat",
        ],
        "rows": rows,
    }


def _halves(every: Mapping[str, Any]) -> str:
    """A ``with_all``'s halves (``0-9 / 10-19``), or how few seeds its agents share when it was not computed."""
    if "mu_a" in every:
        return f"{_span(every['seeds_a'])} / {_span(every['seeds_b'])}"
    return f"{every['seeds']} shared"


def _span(seeds: Sequence[int]) -> str:
    return f"{seeds[0]}-{seeds[-1]}" if seeds else "(none)"


def _num(value: Any, ci: Any) -> Any:
    if value is None:
        return "-"
    return {"text": f"{value:.2f} ± {ci:.2f}" if ci is not None else f"{value:.2f}", "value": value, "ci": ci}


def section(fam: FamilyData, out: Path, root: Path) -> dict[str, Any]:
    """The crossplay section from the stored records only."""
    by_env = _records(fam)
    blocks: list[dict[str, Any]] = [{"kind": "p", "text": INTRO}]
    written: list[str] = []
    panels = []
    agreements = []
    for env_id in sorted(by_env):
        more, figs, panel, agree = _env_blocks(env_id, by_env[env_id], out, root)
        blocks += more
        written += figs
        agreements.append(agree)
        if panel is not None:
            panels.append(panel)
    if agreements:
        blocks.append({"kind": "h3", "text": "Rank agreement", "id": "crossplay-rank-agreement"})
        blocks.append(agreement_table(agreements))
    if not by_env:
        blocks.append(
            {"kind": "p", "text": "No crossplay records stored yet (run `tom-envs crossplay --out THIS_FOLDER`)."}
        )
    blocks += drawn_figure(figures.plane, out / "plane.png", PLANE_TITLE, panels, "env", PLANE_CAPTION, written, root)
    return section_of(fam, "Crossplay (tom-envs crossplay)", blocks, panels, written)
