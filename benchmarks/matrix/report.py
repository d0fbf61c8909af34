"""The matrix games' report section (004): regret, ToM % and ΔToM per cell, next to 004's Table 4.

Built from the stored records only (see :mod:`benchmarks.report.sections`)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.doc import Block, estimate, num
from benchmarks.report.load import FamilyData, ResultsFileData
from benchmarks.report.sections import (
    section_of,
    plane_section,
    all_episode_keys,
    as_dict,
    joined,
    run_variants,
    Section,
    slug,
    sum_opt,
    unknown_block,
    unknown_keys,
    write,
)
from tom_envs.stats import mean_ci95


MATRIX_TOP = {"key", "cell", "seed", "episode", "partner", "code", "steps"}
MATRIX_EPISODE = {
    "partner",
    "rounds",
    "return",
    "optimal_return",
    "regret",
    "regret_per_step",
    "tom_steps",
    "tom_accuracy",
    "tom_response",
    "tom_regret",
    "tom_regret_per_step",
    "tom_regrets",
    "regrets",
    "tom_correct",
    "policy_stats",
}


def _dtom(e: dict, response: str) -> Any:
    """ΔToM/T of an episode under ``response`` (older records: the unsuffixed key, if it is that response's)."""
    v = e.get(f"tom_regret_per_step_{response}")
    if v is None and e.get("tom_response", response) == response:
        v = e.get("tom_regret_per_step")
    return v


def _matrix_row(f: ResultsFileData, response: str) -> dict[str, Any] | None:
    recs = [r for r in f.records if isinstance(r.get("episode"), dict)]
    if not recs:
        return None
    cell = as_dict(recs[0].get("cell")) or as_dict(f.config)
    params = as_dict(cell.get("policy_params"))
    eps = [r["episode"] for r in recs]

    stats = [as_dict(e.get("policy_stats")) for e in eps]
    policy = str(cell.get("policy", "?"))
    return {
        "file": f,
        "game": str(cell.get("game", "?")),
        "partners": str(cell.get("partners", "?")),
        "policy": policy,
        "horizon": cell.get("horizon"),
        "model": params.get("model"),
        "label_set": params.get("label_set"),
        "kind": "LLM" if params.get("model") or policy.startswith("llm") else "scripted",
        "episodes": len(eps),
        "regret": estimate([e.get("regret_per_step") for e in eps]),
        "dtom": estimate([_dtom(e, response) for e in eps]),
        "tom": estimate([e.get("tom_accuracy") for e in eps]),
        "fallbacks": sum_opt(s.get("fallbacks") for s in stats),
        "parse_failures": sum_opt(s.get("parse_failures") for s in stats),
        "regrets": [e.get("regrets") or [] for e in eps],
        "tom_correct": [[None if x is None else 100.0 * float(x) for x in (e.get("tom_correct") or [])] for e in eps],
        "by_partner": {
            name: [e for e in eps if str(e.get("partner")) == name]
            for name in sorted({str(e.get("partner")) for e in eps})
        },
    }


def _agent(row: dict, horizon: bool = False) -> str:
    """A figure label: the policy, the model (a local model folder by its last part; tables keep it whole),
    the label set and, for figures (``horizon``), the horizon T: runs that differ in any of them never share a
    figure label or style (tables have a T column)."""
    model = str(row.get("model") or "")
    bits = [model.rstrip("/").rsplit("/", 1)[-1]] if model else []
    bits += [f"labels {row['label_set']}"] if row.get("label_set") else []  # label sets overlaid stay apart
    bits += [f"T={row['horizon']}"] if horizon and row.get("horizon") is not None else []
    return row["policy"] + (f" ({', '.join(bits)})" if bits else "")


#: The by-partner table's row of the partner-weighted estimate (:func:`benchmarks.matrix.partner_mean`).
PARTNER_MEAN_LABEL = "weighted mean over partners"


#: The caption of the literal-vs-functional figure.
PLANE_CAPTION = (
    "Each evaluated agent (policy, model) against each partner population: x = ToM % (literal), "
    "y = ΔFunctional/T (functional; the axis is inverted, so up is better), whiskers = 95 % CIs "
    "(ToM % whiskers stop at 0 and 100). Colour = agent, marker = horizon T and partners. "
    "Hollow stars: 004's published Tabular RMax rows."
)


def matrix(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.matrix.cells import partner_mean
    from benchmarks.matrix.published import PUBLISHED_TABULAR
    from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES

    response = DEFAULT_TOM_RESPONSE
    rows = [r for r in (_matrix_row(f, response) for f in fam.files) if r is not None]
    blocks: list[Block] = [
        {
            "kind": "p",
            "text": (
                f"{len(rows)} evaluated cells, {sum(r['episodes'] for r in rows)} episodes. Each row is mean ± 95 % CI "
                f"(Student t) over its episodes. ΔToM/T charges each wrong prediction under the '{response}' response, "
                f"the one that reproduces 004's tables (docs/architecture.md, 'Metric definitions'; the records also "
                f"hold {', '.join(r for r in TOM_RESPONSES if r != response)}). Published reference rows (yellow, "
                "italic) are 004's Table 4 Tabular RMax rows (T = 100, scripted partners). Fallbacks are random actions "
                "taken after an LLM's replies failed to parse (not the model's choices); parse failures count re-asks."
            ),
        }
    ]
    table_rows = []
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["game"], r["partners"])].append(r)
    for (game, partners), members in sorted(groups.items()):
        for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
            table_rows.append(
                {
                    "cells": [
                        game,
                        partners,
                        r["policy"],
                        r["kind"],
                        r["model"] or "-",
                        r["label_set"] or "-",
                        "-" if r["horizon"] is None else str(r["horizon"]),
                        str(r["episodes"]),
                        num(*r["regret"]),
                        num(*r["dtom"]),
                        num(*r["tom"], digits=1),
                        "-" if r["fallbacks"] is None else str(r["fallbacks"]),
                        "-" if r["parse_failures"] is None else str(r["parse_failures"]),
                    ]
                }
            )
        pub = PUBLISHED_TABULAR.get((game, partners))
        if pub is not None:
            table_rows.append(
                {
                    "ref": True,
                    "cells": [
                        game,
                        partners,
                        "004 Tabular RMax (published)",
                        "scripted",
                        "-",
                        "-",
                        "100",
                        "-",
                        num(pub[0]),
                        num(pub[1]),
                        num(pub[2], digits=1),
                        "-",
                        "-",
                    ],
                }
            )
    partner_rows = []
    for (game, partners), members in sorted(groups.items()):
        for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
            if len(r["by_partner"]) < 2:
                continue
            per: dict[str, dict[str, Any]] = {}
            for name, sub in sorted(r["by_partner"].items()):
                entry = per[name] = {}
                for key, values in (
                    ("regret", [e.get("regret_per_step") for e in sub]),
                    ("dtom", [_dtom(e, response) for e in sub]),
                    ("tom", [e.get("tom_accuracy") for e in sub]),
                ):
                    entry[key], entry[key + "_ci"] = mean_ci95(values)
                partner_rows.append(
                    {
                        "cells": [
                            game,
                            partners,
                            _agent(r),
                            name,
                            str(len(sub)),
                            num(entry["regret"], entry["regret_ci"], len(sub)),
                            num(entry["dtom"], entry["dtom_ci"], len(sub)),
                            num(entry["tom"], entry["tom_ci"], len(sub), digits=1),
                        ]
                    }
                )
            est = partner_mean(game, partners, per, keys=("regret", "dtom", "tom"))
            if est is not None:  # 004's "mean estimate across opponent policies" (the demo compares this one)
                partner_rows.append(
                    {
                        "cells": [
                            game,
                            partners,
                            _agent(r),
                            PARTNER_MEAN_LABEL,
                            str(sum(len(sub) for sub in r["by_partner"].values())),
                            num(est["regret"], est["regret_ci"]),
                            num(est["dtom"], est["dtom_ci"]),
                            num(est["tom"], est["tom_ci"], digits=1),
                        ]
                    }
                )
    blocks.append(
        {
            "kind": "table",
            "caption": "Matrix games: regret and ToM per cell (004 Table 4 layout)",
            "columns": [
                "game",
                "partners",
                "policy",
                "parties",
                "model",
                "label set",
                "T",
                "episodes",
                "ΔFunctional/T",
                f"ΔToM/T ({response})",
                "ToM %",
                "fallbacks",
                "parse failures",
            ],
            "rows": table_rows,
        }
    )
    if partner_rows:
        blocks += [
            {
                "kind": "p",
                "text": (
                    "A population's pooled mean (the table above) follows the partner draws of the run; by partner (cells "
                    f"with more than one partner drawn), and the '{PARTNER_MEAN_LABEL}': each partner's mean weighted by its "
                    "probability in the population, 004's 'mean estimate across opponent policies', which the demo "
                    "compares with 004's Table 4 (the rows' partner_mean):"
                ),
            },
            {
                "kind": "table",
                "caption": "Matrix games: by partner drawn",
                "columns": [
                    "game",
                    "partners",
                    "agent",
                    "partner",
                    "episodes",
                    "ΔFunctional/T",
                    f"ΔToM/T ({response})",
                    "ToM %",
                ],
                "rows": partner_rows,
            },
        ]
    # the literal-vs-functional plane, one panel per game (split by partner population past 8 points);
    # colour = the agent, marker = horizon and partners (and a setting two runs of one agent differ in)
    apart = run_variants(
        [((r["game"], _agent(r), r["horizon"], r["partners"]), r["file"].config, r["file"].path.name) for r in rows]
    )
    for r, extra in zip(rows, apart):
        r["variant"] = joined(f"T={r['horizon']}" if r["horizon"] is not None else "", extra)
    panels = []
    for game in sorted({r["game"] for r in rows}):
        points = [
            {
                "agent": _agent(r),
                "variant": joined(r["variant"], f"vs {r['partners']}"),
                "x": r["tom"][0],
                "xci": r["tom"][1],
                "y": r["regret"][0],
                "yci": r["regret"][1],
            }
            for r in rows
            if r["game"] == game
        ]
        points += [
            {"label": f"004 Tabular vs {p}", "x": v[2], "y": v[0], "ref": True}
            for (g, p), v in sorted(PUBLISHED_TABULAR.items())
            if g == game
        ]
        panels.append(
            {
                "title": f"matrix: {game}",
                "xlabel": "literal ToM: prediction accuracy (%)",
                "xlim": (0, 100),
                "ylabel": "functional: ΔFunctional/T (regret, up = better)",
                "invert_y": True,
                "points": points,
            }
        )
    written: list[str] = []
    blocks += plane_section(
        "Matrix games: literal vs functional ToM", PLANE_CAPTION, panels, "horizon, partners", written, out, root
    )
    # per-round curves per (game, partners)
    if groups:
        blocks.append({"kind": "h3", "text": "Per-round regret and ToM accuracy"})
    for (game, partners), members in sorted(groups.items()):
        panels_c = []
        for key, title, ylabel, clip in (
            ("regrets", "regret per round", "r*_t - r_t", None),
            ("tom_correct", "ToM accuracy per round", "ToM %", (0.0, 100.0)),
        ):
            series = []
            for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
                b = figures.band([s for s in r[key] if s])
                if b["x"]:
                    series.append({"agent": _agent(r), "variant": r["variant"], **b})
            if series:
                panels_c.append({"title": title, "xlabel": "round", "ylabel": ylabel, "series": series, "clip": clip})
        if not panels_c:
            continue
        n = ", ".join(f"{_agent(r, horizon=True)}: {r['episodes']}" for r in members)
        src = write(
            figures.curves(
                out / f"rounds_{slug(game)}_{slug(partners)}.png",
                f"{game} vs {partners}",
                panels_c,
                variant_title="horizon",
            ),
            written,
            root,
        )
        blocks.append(
            {
                "kind": "figure",
                "src": src,
                "caption": (f"{game} vs {partners}: mean over episodes per round with 95 % bands (episodes: {n})."),
            }
        )
    blocks += unknown_block(
        unknown_keys(
            [rec for f in fam.files for rec in f.records],
            MATRIX_TOP,
            MATRIX_EPISODE | {k for k in all_episode_keys(fam) if k.startswith("tom_regret")},
        )
    )
    return section_of(fam, "Matrix games (004)", blocks, panels, written)
