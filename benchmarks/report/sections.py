"""One report section per family, built from its stored records (never from a rerun).

Every builder reads records defensively: it keys on the documented record fields (the family
modules' docstrings), treats every optional one as possibly missing, and lists the keys it does
not show. A section is ``{"family", "title", "blocks", "panels"}``: ``blocks`` for the page
(:mod:`benchmarks.report.doc`), ``panels`` the literal-vs-functional points for the overview.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import figures
from benchmarks.report.doc import Block, num
from benchmarks.report.load import FamilyData, ResultsFileData
from tom_envs.stats import mean_ci95

Section = dict[str, Any]


# ---------------------------------------------------------------------- shared pieces
def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in str(text)).strip("-") or "x"


def _sum_opt(values: Iterable[Any]) -> int | None:
    vals = [v for v in values if isinstance(v, (int, float))]
    return int(sum(vals)) if vals else None


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _settings(config: dict | None, drop: Sequence[str] = ("version", "benchmark")) -> str:
    """A configuration as ``key=value`` pairs (nested dicts flattened with dots)."""
    if config is None:
        return "not stored (no .runs line names it)"
    items: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for k in sorted(value):
                walk(f"{prefix}.{k}" if prefix else str(k), value[k])
        else:
            items.append(f"{prefix}={json.dumps(value, default=str) if not isinstance(value, str) else value}")

    walk("", {k: v for k, v in config.items() if k not in drop})
    return ", ".join(items) or "defaults"


def _unknown(records: Iterable[dict], known: set[str], episode_known: set[str] | None = None) -> list[str]:
    """Record keys (``episode.<key>`` inside the episode summary) that no table or figure shows."""
    top: set[str] = set()
    inner: set[str] = set()
    for rec in records:
        top.update(k for k in rec if k not in known)
        if episode_known is not None:
            inner.update(f"episode.{k}" for k in _dict(rec.get("episode")) if k not in episode_known)
    return sorted(top) + sorted(inner)


def _unknown_block(keys: list[str]) -> list[Block]:
    if not keys:
        return []
    return [{"kind": "p", "text": "Stored but not shown in this section (keys of the records): " + ", ".join(keys)
             + "."}]


def _file_notes(fam: FamilyData) -> list[Block]:
    notes = []
    for f in fam.files:
        if f.holder is not None:
            notes.append(f"{f.path.name}: being written by process {f.holder} now; its complete lines are shown "
                         "and the next report picks up the rest.")
        if f.skipped:
            notes.append(f"{f.path.name}: {f.skipped} line(s) skipped (incomplete or not JSON).")
        if f.duplicates:
            notes.append(f"{f.path.name}: {f.duplicates} repeated record(s) ignored (the first line of each is kept, "
                         "as the benchmarks do).")
    return [{"kind": "ul", "items": notes}] if notes else []


def _write(path: Path, written: list[str], root: Path) -> str:
    written.append(path.relative_to(root).as_posix())
    return written[-1]


def _answerer(f: ResultsFileData, recs: Sequence[dict]) -> tuple[str, str]:
    """A QA results file's answerer and its kind: a scripted policy names itself in its records
    (``policy``); the model answerers are named by the file (``llm_release_...``: llm-release) and
    their stored configuration (model, mode)."""
    policy = next((str(r["policy"]) for r in recs if r.get("policy")), None)
    if policy is not None:
        return policy, "scripted"
    for stem, name in (("llm_release_", "llm-release"), ("llm_beliefs_", "llm-beliefs")):
        if f.path.name.startswith(stem):
            return _label_of(f, name), "LLM"
    return _label_of(f, "llm"), "LLM"


def _label_of(f: ResultsFileData, fallback: str) -> str:
    cfg = f.config or {}
    llm = _dict(cfg.get("llm"))
    model = llm.get("model") or cfg.get("model")
    mode = llm.get("qa_mode") or cfg.get("qa_mode")
    bits = [fallback] + [str(b) for b in (model, mode) if b]
    return " / ".join(bits)


# ---------------------------------------------------------------------- matrix games (004)
MATRIX_TOP = {"key", "cell", "seed", "episode", "partner", "code", "steps"}
MATRIX_EPISODE = {"partner", "rounds", "return", "optimal_return", "regret", "regret_per_step", "tom_steps",
                  "tom_accuracy", "tom_response", "tom_regret", "tom_regret_per_step", "tom_regrets", "regrets",
                  "tom_correct", "policy_stats"}


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
    cell = _dict(recs[0].get("cell")) or _dict(f.config)
    params = _dict(cell.get("policy_params"))
    eps = [r["episode"] for r in recs]

    stats = [_dict(e.get("policy_stats")) for e in eps]
    policy = str(cell.get("policy", "?"))
    return {
        "file": f, "game": str(cell.get("game", "?")), "partners": str(cell.get("partners", "?")), "policy": policy,
        "horizon": cell.get("horizon"), "model": params.get("model"), "label_set": params.get("label_set"),
        "kind": "LLM" if params.get("model") or policy.startswith("llm") else "scripted",
        "episodes": len(eps),
        "regret": mean_ci95([e.get("regret_per_step") for e in eps]),
        "dtom": mean_ci95([_dtom(e, response) for e in eps]),
        "tom": mean_ci95([e.get("tom_accuracy") for e in eps]),
        "fallbacks": _sum_opt(s.get("fallbacks") for s in stats),
        "parse_failures": _sum_opt(s.get("parse_failures") for s in stats),
        "regrets": [e.get("regrets") or [] for e in eps],
        "tom_correct": [[None if x is None else 100.0 * float(x) for x in (e.get("tom_correct") or [])] for e in eps],
        "by_partner": {name: [e for e in eps if str(e.get("partner")) == name]
                       for name in sorted({str(e.get("partner")) for e in eps})},
    }


def _agent(row: dict) -> str:
    """A figure label: the policy, the model (a local model folder by its last part; tables keep it whole)
    and the label set."""
    model = str(row.get("model") or "")
    bits = [model.rstrip("/").rsplit("/", 1)[-1]] if model else []
    bits += [f"labels {row['label_set']}"] if row.get("label_set") else []  # label sets overlaid stay apart
    return row["policy"] + (f" ({', '.join(bits)})" if bits else "")


#: The by-partner table's row of the partner-weighted estimate (:func:`benchmarks.matrix.partner_mean`).
PARTNER_MEAN_LABEL = "weighted mean over partners"


def matrix(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.matrix import PUBLISHED_TABULAR, partner_mean
    from tom_envs.matrix.games import DEFAULT_TOM_RESPONSE, TOM_RESPONSES

    response = DEFAULT_TOM_RESPONSE
    rows = [r for r in (_matrix_row(f, response) for f in fam.files) if r is not None]
    blocks: list[Block] = [{"kind": "p", "text": (
        f"{len(rows)} evaluated cells, {sum(r['episodes'] for r in rows)} episodes. Each row is mean ± 95 % CI "
        f"(Student t) over its episodes. ΔToM/T charges each wrong prediction under the '{response}' response, "
        f"the one that reproduces 004's tables (docs/architecture.md, 'Metric definitions'; the records also "
        f"hold {', '.join(r for r in TOM_RESPONSES if r != response)}). Published reference rows (yellow, "
        "italic) are 004's Table 4 Tabular RMax rows (T = 100, scripted partners). Fallbacks are random actions "
        "taken after an LLM's replies failed to parse (not the model's choices); parse failures count re-asks.")}]
    table_rows = []
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["game"], r["partners"])].append(r)
    for (game, partners), members in sorted(groups.items()):
        for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
            table_rows.append({"cells": [
                game, partners, r["policy"], r["kind"], r["model"] or "-", r["label_set"] or "-",
                "-" if r["horizon"] is None else str(r["horizon"]), str(r["episodes"]),
                num(*r["regret"]), num(*r["dtom"]), num(*r["tom"], digits=1),
                "-" if r["fallbacks"] is None else str(r["fallbacks"]),
                "-" if r["parse_failures"] is None else str(r["parse_failures"])]})
        pub = PUBLISHED_TABULAR.get((game, partners))
        if pub is not None:
            table_rows.append({"ref": True, "cells": [
                game, partners, "004 Tabular RMax (published)", "scripted", "-", "-", "100", "-",
                num(pub[0]), num(pub[1]), num(pub[2], digits=1), "-", "-"]})
    partner_rows = []
    for (game, partners), members in sorted(groups.items()):
        for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
            if len(r["by_partner"]) < 2:
                continue
            per: dict[str, dict[str, Any]] = {}
            for name, sub in sorted(r["by_partner"].items()):
                entry = per[name] = {}
                for key, values in (("regret", [e.get("regret_per_step") for e in sub]),
                                    ("dtom", [_dtom(e, response) for e in sub]),
                                    ("tom", [e.get("tom_accuracy") for e in sub])):
                    entry[key], entry[key + "_ci"] = mean_ci95(values)
                partner_rows.append({"cells": [game, partners, _agent(r), name, str(len(sub)),
                                               num(entry["regret"], entry["regret_ci"]),
                                               num(entry["dtom"], entry["dtom_ci"]),
                                               num(entry["tom"], entry["tom_ci"], digits=1)]})
            est = partner_mean(game, partners, per, keys=("regret", "dtom", "tom"))
            if est is not None:  # 004's "mean estimate across opponent policies" (the demo compares this one)
                partner_rows.append({"cells": [game, partners, _agent(r), PARTNER_MEAN_LABEL,
                                               str(sum(len(sub) for sub in r["by_partner"].values())),
                                               num(est["regret"], est["regret_ci"]), num(est["dtom"], est["dtom_ci"]),
                                               num(est["tom"], est["tom_ci"], digits=1)]})
    blocks.append({"kind": "table", "caption": "Matrix games: regret and ToM per cell (004 Table 4 layout)",
                   "columns": ["game", "partners", "policy", "parties", "model", "label set", "T", "episodes",
                               "ΔFunctional/T", f"ΔToM/T ({response})", "ToM %", "fallbacks", "parse failures"],
                   "rows": table_rows})
    if partner_rows:
        blocks += [{"kind": "p", "text": (
            "A population's pooled mean (the table above) follows the partner draws of the run; by partner (cells "
            f"with more than one partner drawn), and the '{PARTNER_MEAN_LABEL}': each partner's mean weighted by its "
            "probability in the population, 004's 'mean estimate across opponent policies', which the demo "
            "compares with 004's Table 4 (the rows' partner_mean):")},
                   {"kind": "table", "caption": "Matrix games: by partner drawn",
                    "columns": ["game", "partners", "agent", "partner", "episodes", "ΔFunctional/T",
                                f"ΔToM/T ({response})", "ToM %"], "rows": partner_rows}]
    # the literal-vs-functional plane, one panel per game
    panels = []
    for game in sorted({r["game"] for r in rows}):
        points = [{"label": f"{_agent(r)} vs {r['partners']}", "x": r["tom"][0], "xci": r["tom"][1],
                   "y": r["regret"][0], "yci": r["regret"][1]} for r in rows if r["game"] == game]
        points += [{"label": f"004 Tabular vs {p}", "x": v[2], "y": v[0], "ref": True}
                   for (g, p), v in sorted(PUBLISHED_TABULAR.items()) if g == game]
        panels.append({"title": f"matrix: {game}", "xlabel": "literal ToM: prediction accuracy (%)", "xlim": (0, 100),
                       "ylabel": "functional: ΔFunctional/T (regret, up = better)", "invert_y": True,
                       "points": points})
    written: list[str] = []
    if panels:
        src = _write(figures.plane(out / "plane.png", "Matrix games: literal vs functional ToM", panels), written,
                     root)
        blocks += [{"kind": "h3", "text": "Literal vs functional ToM"},
                   {"kind": "figure", "src": src, "caption": (
                       "Each evaluated agent (policy, model) against each partner population: x = ToM % (literal), "
                       "y = ΔFunctional/T (functional; the axis is inverted, so up is better), whiskers = 95 % CIs. "
                       "Hollow stars: 004's published Tabular RMax rows.")}]
    # per-round curves per (game, partners)
    if groups:
        blocks.append({"kind": "h3", "text": "Per-round regret and ToM accuracy"})
    for (game, partners), members in sorted(groups.items()):
        panels_c = []
        for key, title, ylabel, clip in (("regrets", "regret per round", "r*_t - r_t", None),
                                         ("tom_correct", "ToM accuracy per round", "ToM %", (0.0, 100.0))):
            series = []
            for r in sorted(members, key=lambda r: (r["kind"], r["policy"], str(r["model"]))):
                b = figures.band([s for s in r[key] if s])
                if b["x"]:
                    series.append({"label": _agent(r), **b})
            if series:
                panels_c.append({"title": title, "xlabel": "round", "ylabel": ylabel, "series": series, "clip": clip})
        if not panels_c:
            continue
        n = ", ".join(f"{_agent(r)}: {r['episodes']}" for r in members)
        src = _write(figures.curves(out / f"rounds_{_slug(game)}_{_slug(partners)}.png", f"{game} vs {partners}",
                                    panels_c), written, root)
        blocks.append({"kind": "figure", "src": src, "caption": (
            f"{game} vs {partners}: mean over episodes per round with 95 % bands (episodes: {n}).")})
    blocks += _unknown_block(_unknown([rec for f in fam.files for rec in f.records], MATRIX_TOP,
                                      MATRIX_EPISODE | {k for k in _all_episode_keys(fam) if k.startswith("tom_regret")}))
    return {"family": fam.folder, "title": "Matrix games (004)", "blocks": blocks, "panels": panels,
            "figures": written}


def _all_episode_keys(fam: FamilyData) -> set[str]:
    return {k for f in fam.files for rec in f.records for k in _dict(rec.get("episode"))}


# ---------------------------------------------------------------------- negotiation (002)
NEGOTIATION_TOP = {"scenario", "seed", "conflict_mode", "mediator", "version", "episode", "code", "llm_stats",
                   "parties"}
NEGOTIATION_EPISODE = {"cc", "tle_mean", "rl_mean", "me_mean", "mi_mean", "consensus", "topic_consensus",
                       "tom_accuracy", "tom_predictions", "attitude_source", "mi_judge", "scenario", "conflict_mode",
                       "turns", "parties", "topics", "mediator", "tle", "rl", "drop_events", "rl_unanswered",
                       "interventions", "mediator_turns", "metric_definitions", "other_definitions"}


def _pct(v: Any) -> Any:
    return None if v is None else 100.0 * float(v)


def _negotiation_row(f: ResultsFileData) -> dict[str, Any] | None:
    from tom_envs.negotiation.scenario import DIFFICULTY_MODES

    recs = [r for r in f.records if isinstance(r.get("episode"), dict)]
    if not recs:
        return None
    eps = [r["episode"] for r in recs]
    mode = str(recs[0].get("conflict_mode", eps[0].get("conflict_mode", "?")))
    mediator = str(recs[0].get("mediator", "?"))
    cfg = f.config or {}
    llm = _dict(cfg.get("llm"))
    stats = [s for r in recs for s in _dict(r.get("llm_stats")).values() if isinstance(s, dict)]
    none = mediator == "none"
    return {
        "file": f, "mode": mode, "mediator": mediator, "episodes": len(eps),
        "difficulty": next((lv for lv, modes in DIFFICULTY_MODES.items() if mode in modes), "?"),
        "parties": str(recs[0].get("parties", cfg.get("parties", "scripted"))),
        "attitudes": str(eps[0].get("attitude_source", cfg.get("attitudes", "stated"))),
        "mi_judge": eps[0].get("mi_judge"), "model": llm.get("model"),
        # records before the release's definitions existed were computed under the paper's (as the table reads them)
        "definitions": str(eps[0].get("metric_definitions", "paper")),
        "other": sorted({str(_dict(e.get("other_definitions")).get("name")) for e in eps
                         if _dict(e.get("other_definitions")).get("name")}),
        "scenarios": sorted({str(r.get("scenario")) for r in recs}),
        "cc": mean_ci95([_pct(e.get("cc")) for e in eps]),
        "tle": mean_ci95([_pct(e.get("tle_mean")) for e in eps]),
        "rl": (None, None) if none else mean_ci95([e.get("rl_mean") for e in eps]),
        "me": (None, None) if none else mean_ci95([_pct(e.get("me_mean")) for e in eps]),
        "mi": (None, None) if none else mean_ci95([e.get("mi_mean") for e in eps]),
        "tom": mean_ci95([_pct(e.get("tom_accuracy")) for e in eps]),
        "llm_fallbacks": _sum_opt(s.get("fallbacks") for s in stats),
        "llm_decisions": _sum_opt(s.get("decisions") for s in stats),
        "consensus": [e.get("consensus") or [] for e in eps],
    }


def negotiation(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.negotiation_table import PUBLISHED

    rows = [r for r in (_negotiation_row(f) for f in fam.files) if r is not None]
    order = {"accommodating": 0, "avoiding": 1, "general": 2, "competing": 3}
    med_order = {"none": 0, "generic": 1, "social": 2}
    rows.sort(key=lambda r: (order.get(r["mode"], 9), r["mode"], med_order.get(_base(r["mediator"]), 9),
                             _base(r["mediator"]), r["mediator"], r["parties"], r["attitudes"]))
    blocks: list[Block] = [{"kind": "p", "text": (
        f"{len(rows)} cells, {sum(r['episodes'] for r in rows)} episodes (scenarios x runs). Mean ± 95 % CI over "
        "episodes; CC, TLE and ME in percent, RL in turns after a drop event (002 reports seconds), MI on 1-5. "
        "Mediator ToM % is the mediator's stance predictions (party x topic) that were right. Published "
        "reference rows (yellow, italic): 002 Table 1, GPT-4.1 as mediator backbone and as the parties (LLM "
        "parties), mean over 6 scenarios x 5 runs; rows with scripted parties are not comparable to them in "
        "level, only in direction.")}]
    table_rows = []
    last = None
    for r in rows:
        ident = (r["mode"], _base(r["mediator"]))  # 002's Generic/Social are LLM mediators: llm-social's reference
        if last is not None and last != ident and last in PUBLISHED:
            table_rows.append(_negotiation_ref(last, PUBLISHED[last]))
        last = ident
        fb = "-" if r["llm_decisions"] is None else f"{r['llm_fallbacks'] or 0}/{r['llm_decisions']}"
        table_rows.append({"cells": [
            r["difficulty"], r["mode"], r["mediator"] + (f" ({r['model']})" if r["model"] else ""), r["parties"],
            r["attitudes"], r["definitions"], str(r["episodes"]), str(len(r["scenarios"])), num(*r["cc"], digits=2),
            num(*r["tle"], digits=2), num(*r["rl"], digits=2), num(*r["me"], digits=2), num(*r["mi"], digits=3),
            num(*r["tom"], digits=1), fb]})
    if last in PUBLISHED:
        table_rows.append(_negotiation_ref(last, PUBLISHED[last]))
    blocks.append({"kind": "table", "caption": "Negotiation: 002 Table 1 metrics per conflict mode and mediator",
                   "columns": ["difficulty", "conflict mode", "mediator", "parties", "attitudes", "metrics", "episodes",
                               "scenarios", "CC % ↑", "TLE % ↑", "RL (turns) ↓", "ME % ↑", "MI ↑", "mediator ToM %",
                               "LLM fallbacks/decisions"], "rows": table_rows})
    other = sorted({o for r in rows for o in r["other"]})
    blocks.append({"kind": "p", "text": (
        "metrics: the definitions of CC, TLE, ME and RL a row uses ('release': ProMediate-Eval's "
        "scripts/evaluation.py; 'paper': 002's text)"
        + (f"; the records also hold the {', '.join(other)} definitions' values (other_definitions)." if other
           else "."))})
    judges = sorted({str(r["mi_judge"]) for r in rows if r["mi_judge"]})
    if judges:
        blocks.append({"kind": "p", "text": "MI judge: " + "; ".join(judges) + "."})
    written: list[str] = []
    points = [{"label": f"{r['mediator']} ({r['mode']}, {r['parties']} parties)", "x": r["tom"][0],
               "xci": r["tom"][1], "y": r["cc"][0], "yci": r["cc"][1]} for r in rows if r["tom"][0] is not None]
    panels = [{"title": "negotiation", "xlabel": "literal ToM: mediator stance accuracy (%)",
               "ylabel": "functional: consensus change CC (%)", "xlim": (0, 100), "points": points}] if points else []
    if panels:
        src = _write(figures.plane(out / "plane.png", "Negotiation: literal vs functional ToM", panels), written, root)
        blocks += [{"kind": "h3", "text": "Literal vs functional ToM"},
                   {"kind": "figure", "src": src, "caption": (
                       "Each mediator cell: x = its stance-prediction accuracy, y = consensus change, whiskers = "
                       "95 % CIs. 002 publishes no literal-ToM score, so it has no reference points here; the "
                       "'none' mediator predicts nothing and is left out.")}]
    by_mode: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_mode[r["mode"]].append(r)
    curve_panels = []
    for mode, members in by_mode.items():
        series = []
        for r in members:
            b = figures.band([s for s in r["consensus"] if s])
            if b["x"]:
                label = r["mediator"] + ("" if r["parties"] == "scripted" else f" ({r['parties']} parties)")
                series.append({"label": label, **b, "x": [x - 1 for x in b["x"]]})
        if series:
            curve_panels.append({"title": mode, "xlabel": "turn", "ylabel": "consensus (agreement)", "series": series,
                                 "clip": (0.0, 1.0)})
    if curve_panels:
        src = _write(figures.curves(out / "consensus.png", "Consensus over the turns, mean over runs", curve_panels),
                     written, root)
        blocks += [{"kind": "h3", "text": "Consensus trajectories"},
                   {"kind": "figure", "src": src, "caption": (
                       "Overall consensus per turn (turn 0 = before anyone spoke), averaged over every episode "
                       "(scenarios x runs) of a cell, with 95 % bands; one panel per conflict mode (002 Figure 2 "
                       "shows single runs).")}]
    blocks += _unknown_block(_unknown([rec for f in fam.files for rec in f.records], NEGOTIATION_TOP,
                                      NEGOTIATION_EPISODE))
    return {"family": fam.folder, "title": "Negotiation (002)", "blocks": blocks, "panels": panels,
            "figures": written}


def _base(mediator: str) -> str:
    """The mediator of 002's Table 1 a mediator of ours is compared with (``llm-social`` -> ``social``)."""
    return mediator.removeprefix("llm-")


def _negotiation_ref(ident: tuple[str, str], pub: dict[str, float]) -> dict[str, Any]:
    from tom_envs.negotiation.scenario import DIFFICULTY_MODES

    mode, mediator = ident
    level = next((lv for lv, modes in DIFFICULTY_MODES.items() if mode in modes), "?")
    cell = lambda k, d: num(pub.get(k), digits=d) if pub.get(k) is not None else "-"  # noqa: E731
    return {"ref": True, "cells": [level, mode, f"002 {mediator} (GPT-4.1, published)", "llm", "stated", "002's",
                                   "30", "6",
                                   cell("cc", 2), cell("tle", 2), cell("rl", 2) if pub.get("rl") is None else
                                   {**num(pub["rl"], digits=2), "text": f"{pub['rl']:.2f} s"},
                                   cell("me", 2), cell("mi", 3), "-", "-"]}


# ---------------------------------------------------------------------- common ground (003)
CG_TOP = {"version", "cid", "seed", "questions", "llm_stats", "code", "policy"}


def _stage_series(items: Sequence[tuple[int, bool]], stages: int) -> dict[str, list]:
    """Accuracy per stage (items: (stage index, correct))."""
    xs, means, cis = [], [], []
    for s in range(stages):
        hits = [100.0 * c for st, c in items if st == s]
        m, ci = mean_ci95(hits)
        if m is not None:
            xs.append(s + 1)
            means.append(m)
            cis.append(ci)
    return {"x": xs, "mean": means, "ci": cis}


STAGES = ("early", "middle", "late")


def _third(value: Any, values: Iterable[Any]) -> int:
    """0, 1 or 2: the third of the sorted distinct ``values`` that ``value``'s rank falls in."""
    ordered = sorted(set(values))
    return min(2, 3 * ordered.index(value) // len(ordered))


_CG_PUBLISHED_KIND = {"Random Baseline": "scripted", "Human Performance": "human"}


def common_ground(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.common_ground import PUBLISHED, PUBLISHED_SETTINGS
    from tom_envs.common_ground.metrics import summarise

    blocks: list[Block] = [{"kind": "p", "text": (
        "Stored runs of `tom-envs common-ground`: the scripted answerers (random, oracle-beliefs, "
        "gold-beliefs-cg-rules, predicted-beliefs) and the model answerers (llm, llm-release, llm-beliefs), each "
        "conversation and pass as its command stored it. Accuracy in percent with a "
        "95 % normal-approximation CI over questions (as the command prints). Published reference rows: 003's "
        "Table 3, with the settings under which each was obtained; 003's rows read a window of 5 sentences either "
        "side of the marked one (context 'window').")}]
    table_rows, stage_series, settings = [], [], []
    for f in fam.files:
        recs = [r for r in f.records if isinstance(r.get("questions"), list)]
        questions = [q for r in recs for q in r["questions"] if isinstance(q, dict)]
        if not questions:
            continue
        summary = summarise(questions)
        by_order = {row["order"]: row for row in summary["rows"]}
        cfg = f.config or {}
        label, kind = _answerer(f, recs)
        settings.append(f"{label} [{f.path.name}]: {_settings(f.config)}")
        scripted = kind == "scripted"
        table_rows.append({"cells": [
            label, kind, str(cfg.get("context", "not stored")), str(cfg.get("split", "not stored")),
            str(len({r.get('cid') for r in recs})), str(len(recs)),
            *[num(by_order.get(o, {}).get("accuracy"), by_order.get(o, {}).get("ci95"), digits=1)
              for o in ("all", 1, 2, 3)],
            str(by_order.get("all", {}).get("n", len(questions))), num(summary.get("consistency"), digits=1),
            "-" if scripted else str(sum(int(q.get("parse_failures") or 0) for q in questions)),
            "-" if scripted else str(sum(bool(q.get("fallback")) for q in questions)), "stored run"]})
        # stages: thirds of the sentences its conversation has questions about, by rank (as 001's Figure 3 layout)
        snos: dict[Any, set] = defaultdict(set)
        for q in questions:
            snos[q.get("cid")].add(q.get("sno") or 0)
        items = [(_third(q.get("sno") or 0, snos[q.get("cid")]), bool(q.get("correct"))) for q in questions]
        stage_series.append({"label": label, **_stage_series(items, 3)})
    for name, values in PUBLISHED.items():
        table_rows.append({"ref": True, "cells": [
            f"003 {name} (published)", _CG_PUBLISHED_KIND.get(name, "model"), "window", "test", "-", "-",
            *[num(v, digits=1) for v in values], "-", "-", "-",
            "-", PUBLISHED_SETTINGS.get(name, "")]})
    blocks.append({"kind": "table", "caption": "Common-ToM: accuracy by belief order (003 Table 3 layout)",
                   "columns": ["answerer", "kind", "context", "split", "conversations", "answered passes", "Total %",
                               "First %", "Second %", "Third %", "questions", "consistency %", "parse failures",
                               "fallbacks", "settings"], "rows": table_rows})
    if settings:
        blocks += [{"kind": "p", "text": "Stored configurations (from the results files' .runs lines):"},
                   {"kind": "ul", "items": settings}]
    written: list[str] = []
    if stage_series:
        src = _write(figures.bars_by_stage(out / "stages.png", "Common-ToM: accuracy by conversation stage",
                                           "stage of the conversation (the sentence asked about)",
                                           stage_series, STAGES), written, root)
        blocks += [{"kind": "h3", "text": "Accuracy by dialogue stage"},
                   {"kind": "figure", "src": src, "caption": (
                       "Accuracy of the questions about the early, middle and late third of the sentences a "
                       "conversation has questions about (by rank), all orders together, with 95 % CIs over "
                       "questions.")}]
    blocks.append({"kind": "p", "text": "Common-ToM measures literal ToM only (belief questions); it has no "
                                        "functional outcome, so it has no literal-vs-functional plane."})
    blocks += _unknown_block(_unknown([rec for f in fam.files for rec in f.records], CG_TOP))
    return {"family": fam.folder, "title": "Common ground (003)", "blocks": blocks, "panels": [], "figures": written}


# ---------------------------------------------------------------------- persuasion (001)
PERSUASION_TOP = {"version", "dialogue", "repetition", "seed", "answers", "llm_stats", "code", "policy", "protocol",
                  "family", "horizon", "regret_against", "episode", "references"}
LIVE_EPISODE = {"family", "persona", "success", "turns", "regret", "oracle_regret", "bayes_success", "oracle_success",
                "open_loop_success", "heard", "desire_accuracy", "belief_accuracy", "intention_accuracy"}


def _answers(recs: Sequence[dict]) -> list[list[Any]]:
    from tom_envs.persuasion.metrics import Answer

    reps: dict[int, list[Any]] = defaultdict(list)
    for rec in recs:
        for a in rec["answers"]:
            if isinstance(a, dict) and "qtype" in a:
                reps[int(rec.get("repetition") or 0)].append(
                    Answer(qtype=a["qtype"], dialogue=str(rec.get("dialogue")), correct=bool(a.get("correct")),
                           n_choices=int(a.get("n_choices") or 0) or 1,
                           turn=a["turn"] if isinstance(a.get("turn"), int) else None))
    return [reps[r] for r in sorted(reps)]


def persuasion(fam: FamilyData, out: Path, root: Path) -> Section:
    from benchmarks.persuasion import PUBLISHED, PUBLISHED_CONSISTENCY
    from tom_envs.persuasion import QTYPES
    from tom_envs.persuasion.metrics import accuracy_table, consistency_table

    runs = []
    for f in fam.files:
        recs = [r for r in f.records if isinstance(r.get("answers"), list)]
        if not recs:
            continue
        reps = _answers(recs)
        answers = [a for r in recs for a in r["answers"] if isinstance(a, dict)]
        label, kind = _answerer(f, recs)
        runs.append({"file": f, "label": label, "kind": kind, "records": recs,
                     "rows": {r["qtype"]: r for r in accuracy_table(reps)},
                     "consistency": {r["qtype"]: r for r in consistency_table(reps)}, "answers": answers,
                     "dialogues": len({r.get("dialogue") for r in recs}), "repetitions": len(reps)})
    present = [q for q in QTYPES if any(q in run["rows"] for run in runs)] or [
        q for q in QTYPES if any(q in v for v in PUBLISHED.values())]
    blocks: list[Block] = [{"kind": "p", "text": (
        "Stored runs of `tom-envs persuasion` on the PersuasiveToM questions: the scripted answerers (random, "
        "always-first, longest-or-keyword) and the LLM answerer; the live persuasion env's episodes follow below. "
        "Accuracy in percent, mean ± 95 % CI over repetitions (passes over the dialogues), as "
        "the command prints. Published reference rows: 001's Table 5 (accuracy) and Table 6 (consistency), "
        "obtained with the authors' protocol (their prompt, the published option order); a run's protocol is "
        "named per row ('ours' reshuffles the options every pass, so its scores are not comparable to Table 5 "
        "for a position-biased model).")}]
    acc_rows = []
    for run in runs:
        cfg = run["file"].config
        stored = next((r["protocol"] for r in run["records"] if r.get("protocol")), None)
        protocol = stored or ("not stored" if cfg is None else str(_dict(cfg.get("llm")).get(
            "protocol", cfg.get("protocol", "ours"))))
        acc_rows.append({"cells": [run["label"], run["kind"], protocol] + [num(run["rows"][q]["accuracy"], run["rows"][q]["accuracy_ci"],
                                                        digits=2) if q in run["rows"] else "-" for q in present]})
    for name, ref in PUBLISHED.items():
        acc_rows.append({"ref": True, "cells": [f"001 {name} (published)", _PERSUASION_PUBLISHED_KIND.get(
            name, "LLM"), "authors"] +
                         [num(ref[q], digits=2) if q in ref else "-" for q in present]})
    blocks.append({"kind": "table", "caption": "PersuasiveToM: accuracy % by question type (001 Table 5 layout)",
                   "columns": ["answerer", "kind", "protocol"] + present, "rows": acc_rows})
    count_rows = []
    for run in runs:
        for q in present:
            if q not in run["rows"]:
                continue
            row, cons = run["rows"][q], run["consistency"].get(q)
            mine = [a for a in run["answers"] if a.get("qtype") == q]
            count_rows.append({"cells": [
                run["label"], q, str(row["n"]), str(row["repetitions"]), num(row["chance"], digits=2),
                num(cons["consistency"], cons["consistency_ci"], digits=2) if cons else "-",
                num(PUBLISHED_CONSISTENCY.get("GPT-4o", {}).get(q), digits=2)
                if q in PUBLISHED_CONSISTENCY.get("GPT-4o", {}) else "-",
                "-" if run["kind"] == "scripted" else str(sum(int(a.get("parse_failures") or 0) for a in mine)),
                "-" if run["kind"] == "scripted" else str(sum(bool(a.get("fallback")) for a in mine))]})
    if count_rows:
        blocks.append({"kind": "table", "caption": "PersuasiveToM: counts, chance and consistency per question type",
                       "columns": ["answerer", "question type", "questions per pass", "passes", "chance %",
                                   "consistency %", "001 GPT-4o consistency %", "parse failures", "fallbacks"],
                       "rows": count_rows})
    if runs:
        blocks += [{"kind": "p", "text": "Stored configurations (from the results files' .runs lines):"},
                   {"kind": "ul", "items": [f"{run['label']} [{run['file'].path.name}]: {_settings(run['file'].config)}"
                                            for run in runs]}]
    written: list[str] = []
    series, stage_rows = [], []
    for run in runs:
        answers = [a for a in run["answers"] if isinstance(a.get("turn"), int)]
        if not answers or len(answers) != len(run["answers"]):
            continue  # stages need the turn of every answer
        turns: dict[tuple, set] = defaultdict(set)
        dialogue = {id(a): str(rec.get("dialogue")) for rec in run["records"] for a in rec["answers"]}
        for a in answers:
            turns[(dialogue[id(a)], a["qtype"])].add(a["turn"])
        for q in present:
            items = [(_third(a["turn"], turns[(dialogue[id(a)], q)]), bool(a.get("correct"))) for a in answers
                     if a["qtype"] == q]
            if items:
                series.append({"label": f"{run['label']}: {q}", **_stage_series(items, 3)})
        try:
            from tom_envs.persuasion.metrics import stage_table

            table = stage_table(_answers(run["records"]))
        except (ImportError, ValueError, TypeError):
            table = []
        stage_rows += [{"cells": [run["label"], r.get("qtype", "?"), str(r.get("stage", "?")), str(r.get("n", "?")),
                                  num(r.get("accuracy"), digits=2), num(r.get("error_share"), digits=2)]}
                       for r in table]
    if series:
        src = _write(figures.bars_by_stage(out / "stages.png", "PersuasiveToM: accuracy by dialogue stage",
                                           "stage of the dialogue (its question turns)", series, STAGES),
                     written, root)
        blocks += [{"kind": "h3", "text": "Accuracy by dialogue stage"},
                   {"kind": "figure", "src": src, "caption": (
                       "001's Figure 3 layout: accuracy per question type in the early, middle and late third of the "
                       "turns a dialogue has questions of that type at (by rank), with 95 % CIs over questions.")}]
    if stage_rows:
        blocks.append({"kind": "table", "caption": "PersuasiveToM: accuracy and share of the errors by stage",
                       "columns": ["answerer", "question type", "stage", "questions per pass", "accuracy %",
                                   "share of errors %"], "rows": stage_rows})
    blocks.append({"kind": "p", "text": "The QA questions measure literal ToM only; the live persuasion env below "
                                        "measures both (its plane)."})
    live_blocks, panels = _persuasion_live([f for f in fam.files if any(_is_live(r) for r in f.records)], out, root,
                                           written)
    blocks += live_blocks
    live = [rec for f in fam.files for rec in f.records if _is_live(rec)]
    blocks += _unknown_block(_unknown([rec for f in fam.files for rec in f.records], PERSUASION_TOP,
                                      LIVE_EPISODE if live else None))
    return {"family": fam.folder, "title": "Persuasion (001)", "blocks": blocks, "panels": panels, "figures": written}


_PERSUASION_PUBLISHED_KIND = {"Random Guess": "scripted", "Human": "human"}
#: The live env's exact references (keys of a record's ``references``), as the report names them.
LIVE_REFERENCES = (("open_loop", "best open-loop"), ("bayes", "Bayes-optimal fair"), ("oracle", "oracle"))
LIVE_TARGETS = ("desire", "belief", "intention")


def _is_live(rec: dict) -> bool:
    return isinstance(rec.get("episode"), dict) and "family" in rec


def _literal(e: dict) -> float | None:
    """An episode's literal ToM: the mean of its state-prediction accuracies (desire, belief, intention)."""
    vals = [float(e[f"{t}_accuracy"]) for t in LIVE_TARGETS if isinstance(e.get(f"{t}_accuracy"), (int, float))]
    return sum(vals) / len(vals) if vals else None


def _live_stats(recs: Sequence[dict]) -> dict[str, Any]:
    """Success, regret and literal ToM of live episode records, as the command's rows compute them."""
    eps = [r["episode"] for r in recs]
    against = {str(r.get("regret_against", "bayes")) for r in recs}
    key = "oracle_regret" if against == {"oracle"} else "regret"
    out: dict[str, Any] = {
        "episodes": len(eps), "success": mean_ci95([100.0 * float(e.get("success")) for e in eps]),
        "regret": mean_ci95([e.get(key) for e in eps]), "fair_regret": mean_ci95([e.get("regret") for e in eps]),
        "against": "/".join(sorted(against)), "literal": mean_ci95([_literal(e) for e in eps])}
    for t in LIVE_TARGETS:
        out[t] = mean_ci95([e.get(f"{t}_accuracy") for e in eps])
    stats = [_dict(r.get("llm_stats")) for r in recs]
    out["fallbacks"] = _sum_opt(s.get("fallbacks") for s in stats)
    out["decisions"] = _sum_opt(s.get("decisions") for s in stats)
    return out


def _persuasion_live(files: Sequence[ResultsFileData], out: Path, root: Path,
                     written: list[str]) -> tuple[list[Block], list[dict]]:
    """The live persuasion env's subsection: exact references per family, success / regret / literal ToM per
    persuader and family, and the literal-vs-functional plane (one panel per horizon, all families, for the
    overview; one per family in the section's figure)."""
    blocks: list[Block] = [{"kind": "h3", "text": "Live persuasion (v1): success, regret and literal ToM"}]
    runs = []
    for f in files:
        recs = [r for r in f.records if _is_live(r)]
        cfg = f.config or {}
        policy = str(recs[0].get("policy") or cfg.get("policy", "?"))
        model = cfg.get("model")
        reader = _dict(cfg.get("reader"))
        for h in sorted({r.get("horizon") for r in recs}, key=str):
            mine = [r for r in recs if r.get("horizon") == h]
            runs.append({"file": f, "policy": policy, "model": model, "horizon": h, "records": mine,
                         "kind": "LLM" if model or policy == "llm" else "scripted",
                         "reader": str(reader.get("kind", "not stored")) + (f" ({reader['model']})"
                                                                          if reader.get("model") else ""),
                         "families": sorted({str(r["family"]) for r in mine})})
    if not runs:
        blocks.append({"kind": "p", "text": "No stored live episodes (`tom-envs persuasion --env live`)."})
        return blocks, []
    refs: dict[tuple[Any, str], dict] = {}
    for run in runs:
        for r in run["records"]:
            refs.setdefault((run["horizon"], str(r["family"])), _dict(r.get("references")))
    blocks.append({"kind": "p", "text": (
        "Each persuader plays episodes in each scenario family (`tom-envs persuasion --env live`). Success in "
        "percent and regret in success probability, mean ± 95 % CI (Student t) over episodes. regret: against the "
        "Bayes-optimal fair persuader (the best that only sees the dialogue) for every persuader but the oracle, "
        "whose regret is against the state-knowing oracle (column 'regret vs'); fair regret: against the "
        "Bayes-optimal fair persuader for every row. Literal ToM per state: the share of the persuader's desire, "
        "belief and intention predictions that were right (the ToM recorder's scores); literal ToM % is their "
        "mean per episode. The exact references (yellow, italic) are the family's exact success probabilities "
        "of the best open-loop plan, the Bayes-optimal fair persuader and the oracle, computed by planning, "
        "not sampled; the regret columns of those rows are their fair regret (Bayes-optimal fair minus them).")})
    ref_rows = []
    for (h, fam_name), ref in sorted(refs.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        ref_rows.append({"ref": True, "cells": [fam_name, "-" if h is None else str(h)] + [
            num(_pct(ref.get(k)), digits=1) for k in ("random", "open_loop", "bayes", "oracle",
                                                      "value_of_tracking", "value_of_information")]})
    blocks.append({"kind": "table", "caption": "Live persuasion: exact references per scenario family",
                   "columns": ["family", "horizon", "random %", "best open-loop %", "Bayes-optimal fair %",
                               "oracle %", "value of tracking", "value of information"], "rows": ref_rows})
    rows = []
    order = {p: i for i, p in enumerate(("random", "open-loop", "tracking", "bayes", "oracle"))}
    runs.sort(key=lambda r: (str(r["horizon"]), order.get(r["policy"], 9), r["policy"], str(r["model"])))
    for h in dict.fromkeys(r["horizon"] for r in runs):
        fams = sorted({fm for r in runs if r["horizon"] == h for fm in r["families"]})
        for fam_name in [*fams, "all"]:
            for run in [r for r in runs if r["horizon"] == h]:
                mine = [r for r in run["records"] if fam_name == "all" or r["family"] == fam_name]
                if not mine:
                    continue
                st = _live_stats(mine)
                fb = "-" if st["decisions"] is None else f"{st['fallbacks'] or 0}/{st['decisions']}"
                rows.append({"cells": [
                    run["policy"] + (f" ({run['model']})" if run["model"] else ""), run["kind"], fam_name,
                    "-" if h is None else str(h), str(st["episodes"]), num(*st["success"], digits=1),
                    num(*st["regret"], digits=3), st["against"], num(*st["fair_regret"], digits=3),
                    *[num(*st[t], digits=1) for t in LIVE_TARGETS], num(*st["literal"], digits=1), fb]})
            if fam_name == "all":
                continue
            ref = refs.get((h, fam_name), {})
            for k, name in LIVE_REFERENCES:
                if ref.get(k) is None:
                    continue
                fair = None if ref.get("bayes") is None else float(ref["bayes"]) - float(ref[k])
                rows.append({"ref": True, "cells": [
                    f"exact: {name}", "reference", fam_name, "-" if h is None else str(h), "-",
                    num(_pct(ref[k]), digits=1), "-", "-", num(fair, digits=3), "-", "-", "-", "-", "-"]})
    blocks.append({"kind": "table", "caption": "Live persuasion: success, regret and literal ToM per persuader "
                                               "and scenario family",
                   "columns": ["persuader", "kind", "family", "horizon", "episodes", "success %", "regret",
                               "regret vs", "fair regret", "desire ToM %", "belief ToM %", "intention ToM %",
                               "literal ToM %", "LLM fallbacks/decisions"], "rows": rows})
    readers = sorted({r["reader"] for r in runs})
    blocks += [{"kind": "p", "text": f"What read the persuaders' lines: {', '.join(readers)}. Stored "
                                     "configurations (from the results files' .runs lines):"},
               {"kind": "ul", "items": list(dict.fromkeys(
                   f"{r['policy']} [{r['file'].path.name}]: {_settings(r['file'].config)}" for r in runs))}]
    # the plane: x = literal ToM (mean state-prediction accuracy), y = success (functional), exact references as lines
    overview, section_panels = [], []
    for h in dict.fromkeys(r["horizon"] for r in runs):
        members = [r for r in runs if r["horizon"] == h]
        fams = sorted({fm for r in members for fm in r["families"]})
        for fam_name in ["all", *(fams if len(fams) > 1 else [])]:
            points, skipped = [], []
            for run in members:
                mine = [r for r in run["records"] if fam_name == "all" or r["family"] == fam_name]
                if not mine:
                    continue
                st = _live_stats(mine)
                label = run["policy"] + (f" ({str(run['model']).rstrip('/').rsplit('/', 1)[-1]})" if run["model"]
                                         else "")
                if st["literal"][0] is None:
                    skipped.append(label)
                    continue
                points.append({"label": label, "x": st["literal"][0], "xci": st["literal"][1],
                               "y": st["success"][0], "yci": st["success"][1]})
            fam_refs = [refs[(h, fm)] for fm in (fams if fam_name == "all" else [fam_name]) if (h, fm) in refs]
            lines = [{"label": f"exact {name}", "y": 100.0 * sum(float(r[k]) for r in fam_refs) / len(fam_refs)}
                     for k, name in LIVE_REFERENCES if fam_refs and all(r.get(k) is not None for r in fam_refs)]
            panel = {"title": f"persuasion live, H={h}, " + ("all families" if fam_name == "all" else fam_name),
                     "xlabel": "literal ToM: mean desire/belief/intention accuracy (%)", "xlim": (0, 100),
                     "ylabel": "functional: success (%)", "ylim": (0, 100), "points": points, "hlines": lines,
                     "skipped": skipped}
            section_panels.append(panel)
            if fam_name == "all":
                overview.append(panel)
    src = _write(figures.plane(out / "live_plane.png", "Live persuasion: literal vs functional ToM", section_panels),
                 written, root)
    skipped = sorted({s for p in section_panels for s in p["skipped"]})
    blocks.append({"kind": "figure", "src": src, "caption": (
        "Each persuader: x = literal ToM (mean of its desire, belief and intention prediction accuracies), y = "
        "functional ToM as success % (up = better; regret against the Bayes-optimal fair persuader is the distance "
        "below its line), whiskers = 95 % CIs. Dashed lines: the exact success of the best open-loop plan, the "
        "Bayes-optimal fair persuader and the oracle (mean over the panel's families)."
        + (f" Not drawn (no state predictions): {', '.join(skipped)}." if skipped else ""))})
    return blocks, overview


# ---------------------------------------------------------------------- anything else
def generic(fam: FamilyData, out: Path, root: Path) -> Section:
    """A folder of results files the report does not know: what is there, and its keys."""
    rows = [{"cells": [f.path.name, str(len(f.records)), ", ".join(sorted({k for r in f.records for k in r}))]}
            for f in fam.files]
    return {"family": fam.folder, "title": f"Other results: {fam.folder}/", "panels": [], "figures": [],
            "blocks": [{"kind": "p", "text": "Results files in a folder no report section knows; listed with their "
                                             "record keys."},
                       {"kind": "table", "caption": f"{fam.folder}/", "columns": ["file", "records", "keys"],
                        "rows": rows}]}


def builder(folder: str) -> Callable[[FamilyData, Path, Path], Section]:
    """The section builder of the family writing to ``folder`` (its declaration's ``report_section``),
    or :func:`generic` for a folder no declared family owns."""
    from tom_envs.family import families, load_object

    for fam in families():
        if fam.results_folder == folder and fam.report_section:
            return load_object(fam.report_section)
    return generic


# ---------------------------------------------------------------------- provenance
def provenance(fam: FamilyData) -> list[Block]:
    """Versions, commits, dates, command lines, models and data checksums of a family's results."""
    stamps = Counter()
    for f in fam.files:
        for rec in f.records:
            code = _dict(rec.get("code"))
            stamps[(str(code.get("tom_envs", "?")), str(code.get("commit") or "not a git checkout")[:12],
                    str(code.get("results", "?")))] += 1
    runs = [run for f in fam.files for run in f.runs]
    items = [f"{len(fam.files)} results files, {fam.records} records under {fam.folder}/."]
    items += [f"tom-envs {v}, commit {c}, results format {r}: {n} records" for (v, c, r), n in sorted(stamps.items())]
    if runs:
        dates = sorted(str(r.get("first_append")) for r in runs if r.get("first_append"))
        if dates:
            items.append(f"written between {dates[0]} and {dates[-1]} (UTC, first append of each run)")
    else:
        import time

        mtimes = sorted(f.mtime for f in fam.files)
        if mtimes:
            fmt = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))  # noqa: E731
            items.append(f"dates: not stored in these results (no .runs lines); the files were last modified between "
                         f"{fmt(mtimes[0])} and {fmt(mtimes[-1])} (UTC)")
    no_runs = [f.path.name for f in fam.files if not f.runs]
    if no_runs:
        items.append(f"{len(no_runs)} file(s) have no .runs lines (written before tom-envs kept them): their command "
                     "lines, dates, configurations and data checksums are not stored")
    models = set()
    for f in fam.files:
        cfg = f.config or {}
        for rec in f.records[:1]:
            model = _dict(_dict(rec.get("cell")).get("policy_params")).get("model")
            if model:
                models.add(str(model))
        for src in (cfg, _dict(cfg.get("llm")), _dict(cfg.get("policy_params"))):
            if src.get("model"):
                models.add(str(src["model"]))
    items.append("models: " + (", ".join(sorted(models)) if models else "none (scripted policies), or not stored"))
    checksums = {d: c for run in runs for d, c in _dict(run.get("data_checksums")).items()}
    if checksums:
        items += [f"data folder {d}: sha256 {c}" for d, c in sorted(checksums.items())]
    else:
        items.append("data folder checksums: none stored (no configuration here names a data_dir folder; "
                     "runs on the bundled samples or on built-in scenarios, or written before .runs lines)")
    blocks: list[Block] = [{"kind": "ul", "items": items}]
    commands = list(dict.fromkeys(" ".join(map(str, run.get("command") or [])) for run in runs))
    if commands:
        blocks += [{"kind": "p", "text": "Command lines that wrote these results:"},
                   {"kind": "code", "text": "\n".join(commands)}]
    return blocks + _file_notes(fam)
