"""The hidden-role report section (``Family.report_section``): one table row per stored cell and a
literal-vs-functional panel, built from the stored records only (:mod:`benchmarks.report.sections`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.doc import Block, num
from benchmarks.report.load import FamilyData
from benchmarks.report.sections import Section, as_dict, settings_text, unknown_block, unknown_keys, write
from tom_envs.stats import mean_ci95

TOP = {"key", "cell", "seed", "episode", "code"}
EPISODE = {"rounds", "return", "tom_steps", "tom_accuracy", "tom_correct", "outcome", "policy_stats"}


def _mean(values: list[Any], scale: float = 1.0) -> tuple[float | None, float | None]:
    m, ci = mean_ci95([scale * float(v) for v in values if v is not None])
    return m, ci


def _llm_counts(episodes: list[dict]) -> tuple[str, str]:
    """Parse failures and fallbacks summed over the stored policy counters ("-" when none were stored:
    scripted detectives, or an LLM run played one by one)."""
    stats = [s for ep in episodes for s in as_dict(ep.get("policy_stats")).values() if isinstance(s, dict)]
    if not stats:
        return "-", "-"
    return (
        str(sum(int(s.get("parse_failures") or 0) for s in stats)),
        str(sum(int(s.get("fallbacks") or 0) for s in stats)),
    )


def section(fam: FamilyData, out: Path, root: Path) -> Section:
    """The family's section: per cell, the detective's ToM % (its guess of the impostor before the
    vote), the innocents' win rate and the detective's correct votes, with 95 % CIs over episodes."""
    rows, points, settings = [], [], []
    players: set[int] = set()
    for f in fam.files:
        recs = [r for r in f.records if isinstance(r.get("episode"), dict)]
        if not recs:
            continue
        cell = as_dict(recs[0].get("cell"))
        params = as_dict(cell.get("policy_params"))
        label = str(cell.get("policy", "?")) + (f" / {params['model']}" if params.get("model") else "")
        episodes = [r["episode"] for r in recs]
        outcome = [as_dict(ep.get("outcome")) for ep in episodes]
        tom = _mean([ep.get("tom_accuracy") for ep in episodes])
        win = _mean([o.get("win") for o in outcome], 100.0)
        vote = _mean([o.get("correct_vote") for o in outcome], 100.0)
        ret = _mean([ep.get("return") for ep in episodes])
        failures, fallbacks = _llm_counts(episodes)
        players.add(int(as_dict(cell.get("env_kwargs")).get("n_players", 4)))
        rows.append(
            {
                "cells": [
                    label,
                    str(cell.get("env_id", "?")),
                    str(len(recs)),
                    num(*tom, digits=1),
                    num(*win, digits=1),
                    num(*vote, digits=1),
                    num(*ret, digits=2),
                    failures,
                    fallbacks,
                ]
            }
        )
        settings.append(f"{label} [{f.path.name}]: {settings_text(cell)}")
        if tom[0] is not None and win[0] is not None:
            points.append({"agent": label, "x": tom[0], "xci": tom[1], "y": win[0], "yci": win[1]})
    for n in sorted(players):
        rows.append(
            {
                "ref": True,
                "cells": [
                    f"chance ({n} players)",
                    "-",
                    "-",
                    num(100.0 / (n - 1), digits=1),
                    "-",
                    num(100.0 / (n - 1), digits=1),
                    "-",
                    "-",
                    "-",
                ],
            }
        )
    blocks: list[Block] = [
        {
            "kind": "p",
            "text": (
                "Stored runs of `tom-envs hidden-role`: the detective seat (player_0, never the impostor) against "
                "scripted players, one of whom is secretly the impostor. ToM % is the detective's guess of the "
                "impostor made before its vote, scored when the vote makes the roles public; win % is how often the "
                "innocents ejected the impostor. Means with 95 % CIs over episodes. No paper publishes this game; the "
                "reference row is a uniform guess among the other players."
            ),
        },
        {
            "kind": "table",
            "caption": "Hidden role: the detective's literal and functional ToM",
            "columns": [
                "detective",
                "env",
                "episodes",
                "ToM %",
                "win %",
                "correct vote %",
                "return",
                "parse failures",
                "fallbacks",
            ],
            "rows": rows,
        },
    ]
    if settings:
        blocks += [{"kind": "p", "text": "Stored cell configurations:"}, {"kind": "ul", "items": settings}]
    panels = (
        [
            {
                "title": "hidden role",
                "xlabel": "literal ToM: impostor named (%)",
                "ylabel": "functional: innocents win (%)",
                "xlim": (0, 100),
                "points": points,
            }
        ]
        if points
        else []
    )
    written: list[str] = []
    if panels:
        src = write(figures.plane(out / "plane.png", "Hidden role: literal vs functional ToM", panels), written, root)
        blocks += [
            {"kind": "h3", "text": "Literal vs functional ToM"},
            {
                "kind": "figure",
                "src": src,
                "caption": (
                    "Each detective: x = how often it named the impostor before the vote, y = how often the "
                    "innocents won, whiskers = 95 % CIs."
                ),
            },
        ]
    blocks += unknown_block(unknown_keys([r for f in fam.files for r in f.records], TOP, EPISODE))
    return {
        "family": fam.folder,
        "title": "Hidden role (plugin)",
        "blocks": blocks,
        "panels": panels,
        "figures": written,
    }
