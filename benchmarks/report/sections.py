"""One report section per family, built from its stored records (never from a rerun).

Every builder reads records defensively: it keys on the documented record fields (the family
modules' docstrings), treats every optional one as possibly missing, and lists the keys it does
not show. A section is ``{"family", "title", "blocks", "panels", "figures"}`` (:func:`section_of`):
``blocks`` for the page (:mod:`benchmarks.report.doc`), ``panels`` the literal-vs-functional points for the
overview, ``figures`` the files it drew.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report.doc import Block
from benchmarks.report.load import FamilyData, ResultsFileData
from benchmarks.report.parts import (  # noqa: F401 - re-exported: the family sections import them from here
    Section,
    drawn_figure,
    figure_block,
    figure_section,
    plane_section,
    section_of,
    write,
)
from benchmarks.results import FAULTS_FIELD, fault_columns
from tom_envs.stats import mean_ci95


# ---------------------------------------------------------------------- shared pieces
def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in str(text)).strip("-") or "x"


def sum_opt(values: Iterable[Any]) -> int | None:
    vals = [v for v in values if isinstance(v, (int, float))]
    return int(sum(vals)) if vals else None


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def settings_text(config: dict | None, drop: Sequence[str] = ("version", "benchmark")) -> str:
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


def unknown_keys(records: Iterable[dict], known: set[str], episode_known: set[str] | None = None) -> list[str]:
    """Record keys (``episode.<key>`` inside the episode summary) that no table or figure shows (an LLM
    episode's ``llm_faults`` is shown by every family's provenance: :func:`fault_item`)."""
    known = known | {FAULTS_FIELD}
    top: set[str] = set()
    inner: set[str] = set()
    for rec in records:
        top.update(k for k in rec if k not in known)
        if episode_known is not None:
            inner.update(f"episode.{k}" for k in as_dict(rec.get("episode")) if k not in episode_known)
    return sorted(top) + sorted(inner)


def unknown_block(keys: list[str]) -> list[Block]:
    if not keys:
        return []
    return [
        {"kind": "p", "text": "Stored but not shown in this section (keys of the records): " + ", ".join(keys) + "."}
    ]


def fault_item(records: Sequence[dict]) -> list[str]:
    """The server retries the LLM episodes of ``records`` took (their ``llm_faults``), as one provenance
    line; none when no record counts them (scripted policies, or records written before they were counted)."""
    counted = [r for r in records if isinstance(r.get(FAULTS_FIELD), dict)]
    if not counted:
        return []
    total = fault_columns(counted)
    kinds = ", ".join(f"{k.removeprefix('llm_')} {v}" for k, v in total.items() if v and k != "llm_retries")
    causes = f" ({kinds})" if kinds else ""
    return [
        f"server retries: {total['llm_retries']} over {len(counted)} LLM record(s){causes}; a retried request "
        "was served in the end (each record's llm_faults)"
    ]


def file_notes(fam: FamilyData) -> list[Block]:
    notes = []
    for f in fam.files:
        if f.holder is not None:
            notes.append(
                f"{f.path.name}: being written by process {f.holder} now; its complete lines are shown "
                "and the next report picks up the rest."
            )
        if f.skipped:
            notes.append(f"{f.path.name}: {f.skipped} line(s) skipped (incomplete or not JSON).")
        if f.duplicates:
            notes.append(
                f"{f.path.name}: {f.duplicates} repeated record(s) ignored (the first line of each is kept, "
                "as the benchmarks do)."
            )
    return [{"kind": "ul", "items": notes}] if notes else []


#: What a QA answerer's label says when some record of its file was scored on data that is not the whole release.
PARTIAL_LABEL = " [partial data]"


def answerer(f: ResultsFileData, recs: Sequence[dict]) -> tuple[str, str]:
    """A QA results file's answerer and its kind: a scripted policy names itself in its records
    (``policy``); the model answerers are named by the file (``llm_release_...``: llm-release) and
    their stored configuration (model, mode). A file with a record marked ``partial`` (scored under
    ``--allow-partial`` on data that is not the whole release) says so in the label (:data:`PARTIAL_LABEL`)."""
    mark = PARTIAL_LABEL if any(r.get("partial") for r in recs) else ""
    policy = next((str(r["policy"]) for r in recs if r.get("policy")), None)
    if policy is not None:
        return policy + mark, "scripted"
    for stem, name in (("llm_release_", "llm-release"), ("llm_beliefs_", "llm-beliefs")):
        if f.path.name.startswith(stem):
            return label_of(f, name) + mark, "LLM"
    return label_of(f, "llm") + mark, "LLM"


def label_of(f: ResultsFileData, fallback: str) -> str:
    cfg = f.config or {}
    llm = as_dict(cfg.get("llm"))
    model = llm.get("model") or cfg.get("model")
    mode = llm.get("qa_mode") or cfg.get("qa_mode")
    bits = [fallback] + [str(b) for b in (model, mode) if b]
    return " / ".join(bits)


def short_model(model: Any) -> str:
    """A model as figures name it: a local folder or hub id by its last part."""
    return str(model).rstrip("/").rsplit("/", 1)[-1]


def agent_name(policy: str, model: Any = None) -> str:
    """The name an agent's colour is keyed by in every figure (:func:`benchmarks.report.figures.assign_colours`):
    the policy, answerer, persuader or mediator, and its model; ``llm (smollm2-135m)``."""
    return str(policy) + (f" ({short_model(model)})" if model else "")


def answerer_agent(f: ResultsFileData, recs: Sequence[dict]) -> tuple[str, str]:
    """A QA results file's answerer as figures draw it: ``(agent, mode)``; the mode (``zero_shot``, ``cot``)
    goes to a figure's line style, not to the colour."""
    label, kind = answerer(f, recs)
    if kind == "scripted":
        return label, ""
    cfg = f.config or {}
    llm = as_dict(cfg.get("llm"))
    name = next(
        (
            n
            for stem, n in (("llm_release_", "llm-release"), ("llm_beliefs_", "llm-beliefs"))
            if f.path.name.startswith(stem)
        ),
        "llm",
    )
    return agent_name(name, llm.get("model") or cfg.get("model")), str(llm.get("qa_mode") or cfg.get("qa_mode") or "")


def _flat(config: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(config, dict) and config:
        return {k: v for key in sorted(config) for k, v in _flat(config[key], f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): "none" if config is None else str(config)}


def run_variants(
    runs: Sequence[tuple[Any, dict | None, str]], drop: Sequence[str] = ("version", "benchmark")
) -> list[str]:
    """What tells apart runs that a figure would otherwise draw alike: ``runs`` are ``(key, stored
    configuration, file name)``, ``key`` what a figure shows of them (agent, variant, panel). For each run,
    "" when no other run has its key, else its values of the fewest settings (at most two, shallowest
    first) that tell the configurations of its key apart (values cut at 20 characters: ``data_dir=none``,
    ``case_files=unset``), or its file name when the configurations do not tell them apart."""
    by_key: dict[Any, list[int]] = {}
    for i, (key, _, _) in enumerate(runs):
        by_key.setdefault(key, []).append(i)
    out = [""] * len(runs)
    for members in by_key.values():
        if len(members) < 2:
            continue
        flats = [{k: v for k, v in _flat(runs[i][1] or {}).items() if k.split(".")[0] not in drop} for i in members]
        keys = sorted({k for fl in flats for k in fl}, key=lambda k: (k.count("."), k))
        differ = [k for k in keys if len({fl.get(k, "unset") for fl in flats}) > 1]
        chosen: list[str] = []  # the fewest keys (shallowest first) that tell the runs apart
        for k in differ:
            if len({tuple(fl.get(c, "unset") for c in chosen + [k]) for fl in flats}) > len(
                {tuple(fl.get(c, "unset") for c in chosen) for fl in flats}
            ):
                chosen.append(k)
        labels = [", ".join(f"{k.rsplit('.', 1)[-1]}={fl.get(k, 'unset')[:20]}" for k in chosen) for fl in flats]
        if not chosen or len(chosen) > 2 or len(set(labels)) < len(labels):
            labels = [f"file {runs[i][2]}" for i in members]
        for i, label in zip(members, labels):
            out[i] = label
    return out


def joined(*parts: str) -> str:
    """Variant parts joined with ', ', empty ones left out."""
    return ", ".join(p for p in parts if p)


def all_episode_keys(fam: FamilyData) -> set[str]:
    return {k for f in fam.files for rec in f.records for k in as_dict(rec.get("episode"))}


def pct(v: Any) -> Any:
    return None if v is None else 100.0 * float(v)


def stage_accuracy(items: Sequence[tuple[int, bool]], stages: int) -> dict[str, list]:
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


def third(value: Any, values: Iterable[Any]) -> int:
    """0, 1 or 2: the third of the sorted distinct ``values`` that ``value``'s rank falls in."""
    ordered = sorted(set(values))
    return min(2, 3 * ordered.index(value) // len(ordered))


STAGES = ("early", "middle", "late")


# ---------------------------------------------------------------------- anything else
def generic(fam: FamilyData, out: Path, root: Path) -> Section:
    """A folder of results files the report does not know: what is there, and its keys."""
    rows = [
        {"cells": [f.path.name, str(len(f.records)), ", ".join(sorted({k for r in f.records for k in r}))]}
        for f in fam.files
    ]
    return {
        "family": fam.folder,
        "title": f"Other results: {fam.folder}/",
        "panels": [],
        "figures": [],
        "blocks": [
            {"kind": "p", "text": "Results files in a folder no report section knows; listed with their record keys."},
            {"kind": "table", "caption": f"{fam.folder}/", "columns": ["file", "records", "keys"], "rows": rows},
        ],
    }


def builder(folder: str) -> Callable[[FamilyData, Path, Path], Section]:
    """The section builder of the family writing to ``folder`` (its declaration's ``report_section``),
    or :func:`generic` for a folder no declared family owns."""
    from tom_envs.family import families, load_object

    for fam in families():
        if fam.results_folder == folder and fam.report_section:
            return load_object(fam.report_section)
    from benchmarks.report import crossplay, rl, selfplay

    if folder == rl.FOLDER:  # tom-envs rl's rows, every family's
        return rl.section
    if folder == crossplay.FOLDER:  # tom-envs crossplay's records, every family's two-seat ids
        return crossplay.section
    if folder == selfplay.FOLDER:  # tom-envs selfplay's checkpoint records, every family's two-seat ids
        return selfplay.section
    return generic


# ---------------------------------------------------------------------- provenance
def provenance(fam: FamilyData) -> list[Block]:
    """Versions, commits, dates, command lines, models and data checksums of a family's results."""
    stamps = Counter()
    for f in fam.files:
        for rec in f.records:
            code = as_dict(rec.get("code"))
            stamps[
                (
                    str(code.get("tom_envs", "?")),
                    str(code.get("commit") or "not a git checkout")[:12],
                    str(code.get("results", "?")),
                )
            ] += 1
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
            items.append(
                f"dates: not stored in these results (no .runs lines); the files were last modified between "
                f"{fmt(mtimes[0])} and {fmt(mtimes[-1])} (UTC)"
            )
    no_runs = [f.path.name for f in fam.files if not f.runs]
    if no_runs:
        items.append(
            f"{len(no_runs)} file(s) have no .runs lines (written before tom-envs kept them): their command "
            "lines, dates, configurations and data checksums are not stored"
        )
    models = set()
    for f in fam.files:
        cfg = f.config or {}
        for rec in f.records[:1]:
            model = as_dict(as_dict(rec.get("cell")).get("policy_params")).get("model")
            if model:
                models.add(str(model))
        for src in (cfg, as_dict(cfg.get("llm")), as_dict(cfg.get("policy_params"))):
            if src.get("model"):
                models.add(str(src["model"]))
    items.append("models: " + (", ".join(sorted(models)) if models else "none (scripted policies), or not stored"))
    items += fault_item([rec for f in fam.files for rec in f.records])
    checksums = {d: c for run in runs for d, c in as_dict(run.get("data_checksums")).items()}
    if checksums:
        items += [f"data folder {d}: sha256 {c}" for d, c in sorted(checksums.items())]
    else:
        items.append(
            "data folder checksums: none stored (no configuration here names a data_dir folder; "
            "runs on the bundled samples or on built-in scenarios, or written before .runs lines)"
        )
    blocks: list[Block] = [{"kind": "ul", "items": items}]
    commands = list(dict.fromkeys(" ".join(map(str, run.get("command") or [])) for run in runs))
    if commands:
        blocks += [
            {"kind": "p", "text": "Command lines that wrote these results:"},
            {"kind": "code", "text": "\n".join(commands)},
        ]
    return blocks + file_notes(fam)
