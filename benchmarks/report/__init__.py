"""``tom-envs report RESULTS_DIR --out report/``: one static report over every family's stored results.

Reads the results files the benchmarks wrote under ``RESULTS_DIR/<family>/`` (their ``--out``)
through :mod:`benchmarks.results` and writes ``report/index.html`` (a self-contained page: inline
CSS, no scripts, PNG figures in per-family folders next to it) and ``report/index.md`` (the same
content in Markdown). Per family: its tables next to the published reference rows with the
settings that make them comparable, CIs, episode and fallback counts; the literal-vs-functional
plane (every evaluated agent as a point with CI whiskers, published agents as reference points);
per-round curves with 95 % bands, consensus trajectories, accuracy by dialogue stage; and the
provenance of the results (versions, commits, dates, command lines, models, data checksums).

Figures are planned per section and drawn once every section is known, with one colour per agent over
the whole report (:mod:`benchmarks.report.figures`); a cached section drawn with other colours (a new agent
took one) is redrawn.

Incremental and safe while an evaluation runs: a family's section is rebuilt only when its files
changed (name, size, modification time; :func:`benchmarks.report.load.fingerprint`) or the code did
(another commit, or another version of the report's source), files are
read without taking their locks and only their complete lines count, and a family whose file is
being written is rebuilt on every run until the writer is done. ``--force`` rebuilds everything.
See docs/report.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from benchmarks.errors import RunnerError

#: Bump when a section's content changes for the same results (every cached section is rebuilt).
REPORT_VERSION = 2
STATE_FILE = ".report-state.json"
TITLE = "tom-envs results report"


class ReportError(RunnerError):
    """Bad arguments to ``tom-envs report`` (the message says what to pass instead)."""


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _load_state(out: Path) -> dict[str, Any]:
    try:
        state = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"families": {}}
    return state if isinstance(state, dict) and isinstance(state.get("families"), dict) else {"families": {}}


def _cached(out: Path, folder: str) -> dict[str, Any] | None:
    try:
        section = json.loads((out / folder / "section.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not all((out / src).is_file() for src in section.get("figures", [])):
        return None
    return section


def _code_salt() -> str:
    """What else a cached section depends on: the report's version and source, and the code stamp
    (a new commit may change a family's published rows or metric code, so every section is redone once)."""
    import hashlib

    from benchmarks.results import code_stamp

    digest = hashlib.sha256(json.dumps([REPORT_VERSION, code_stamp()], sort_keys=True).encode())
    for src in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(src.read_bytes())
    return digest.hexdigest()


def build_report(results_dir: Path, out: Path = Path("report"), force: bool = False) -> dict[str, Any]:
    """Write (or update) the report of ``results_dir`` into ``out``.

    Returns ``{"index": path of index.html, "markdown": path of index.md, "rebuilt": [family folders],
    "reused": [family folders], "figures": [paths]}``.

    Raises:
        ReportError: ``results_dir`` is not a folder, holds no results files, or holds only unreadable
            records (and none is being written).
    """
    from benchmarks.report import figures
    from benchmarks.report.doc import to_html, to_markdown
    from benchmarks.report.load import family_folders, fingerprint, read_family
    from benchmarks.report.sections import builder, provenance

    results_dir, out = Path(results_dir), Path(out)
    if not results_dir.is_dir():
        raise ReportError(
            f"results folder {str(results_dir)!r} does not exist; pass the --out folder of a "
            "benchmark run (e.g. results/ after `make demo`)"
        )
    if out.resolve() == results_dir.resolve() or any(
        p.parent == results_dir.resolve() and any(p.glob("*.jsonl")) for p in [out.resolve(), *out.resolve().parents]
    ):
        raise ReportError(
            f"--out {str(out)!r} is the results folder or inside a family's results folder; write the "
            "report elsewhere (e.g. RESULTS_DIR/report or report/)"
        )
    folders = family_folders(results_dir)
    if not folders:
        raise ReportError(
            f"{str(results_dir)!r} holds no results files (<family>/*.jsonl): nothing to report. Pass "
            "the --out folder of a benchmark run (e.g. results/ after `make demo`)"
        )
    out.mkdir(parents=True, exist_ok=True)
    state = _load_state(out)
    salt = _code_salt()
    sections: dict[str, dict[str, Any]] = {}
    plans: dict[str, list[figures.Job]] = {}  # the sections built in this run: their figures, not drawn yet
    prints: dict[str, str] = {}

    def build(folder: str) -> dict[str, Any]:
        target = out / folder
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        fam = read_family(results_dir, folder)
        with figures.planned() as plan:
            section = builder(folder)(fam, target, out)
        section["provenance"] = provenance(fam)
        section["records"] = fam.records
        section["skipped"] = sum(f.skipped for f in fam.files)
        section["writing"] = bool(fam.writing)
        section["agent_groups"] = [job.agents for job in plan]
        plans[folder] = plan
        return section

    for folder in folders:
        prints[folder] = fingerprint(results_dir, folder, salt)
        section = None if force or state["families"].get(folder) != prints[folder] else _cached(out, folder)
        sections[folder] = build(folder) if section is None or "agent_groups" not in section else section
    for gone in [f for f in state["families"] if f not in folders]:  # results folders removed since last time
        shutil.rmtree(out / gone, ignore_errors=True)
        del state["families"][gone]
    if not any(s.get("records", 0) or s.get("writing") for s in sections.values()):
        bad = sum(s.get("skipped", 0) for s in sections.values())
        raise ReportError(
            f"{str(results_dir)!r} holds results files but no readable record ({bad} line(s) unreadable "
            "or incomplete, none being written): nothing to report. The files are corrupt or cut; "
            "rerun the benchmark with the same --out (it resumes and rewrites what it cannot read)"
        )
    overview = out / "overview.png"
    panels = [p for s in sections.values() for p in s.get("panels", [])]
    with figures.planned() as overview_plan:
        if panels:
            figures.plane(overview, "Literal vs functional ToM, every family and game", panels)
    # one colour per agent over every figure of the report; a reused section drawn with other colours is redone
    colours = figures.assign_colours(
        [g for s in sections.values() for g in s["agent_groups"]] + [job.agents for job in overview_plan]
    )
    for folder, section in sections.items():
        if folder not in plans and section.get("colours") != _colours_of(section["agent_groups"], colours):
            sections[folder] = build(folder)
    for folder, plan in plans.items():
        figures.draw_all(plan, colours)
        sections[folder]["colours"] = _colours_of(sections[folder]["agent_groups"], colours)
        _atomic_write(out / folder / "section.json", json.dumps(sections[folder], ensure_ascii=False))
        state["families"][folder] = prints[folder]
    overview_colours = _colours_of([job.agents for job in overview_plan], colours)
    if panels and (
        plans
        or not overview.is_file()
        or state.get("overview") != folders
        or state.get("overview_colours") != overview_colours
    ):
        figures.draw_all(overview_plan, colours)
    elif not panels and overview.exists():
        overview.unlink()
        figures.audit_path(overview).unlink(missing_ok=True)
    state["overview"] = folders
    state["overview_colours"] = overview_colours
    rebuilt = [f for f in folders if f in plans]
    reused = [f for f in folders if f not in plans]
    ordered = [sections[f] for f in folders]
    blocks = _page(results_dir, ordered, overview.is_file())
    _atomic_write(out / "index.html", to_html(TITLE, blocks))
    _atomic_write(out / "index.md", to_markdown(TITLE, blocks))
    _atomic_write(out / STATE_FILE, json.dumps(state, indent=1))
    figs = [out / src for s in ordered for src in s.get("figures", [])] + ([overview] if overview.is_file() else [])
    return {
        "index": out / "index.html",
        "markdown": out / "index.md",
        "rebuilt": rebuilt,
        "reused": reused,
        "figures": figs,
    }


def _colours_of(groups: list[list[str]], colours: dict[str, str]) -> dict[str, str]:
    return {agent: colours[agent] for group in groups for agent in sorted(group)}


def family_figures(results_dir: Path, family: str, plot_dir: Path) -> list[Path]:
    """The figures of one family's report section over its results in ``results_dir`` (every stored run of
    the family there, as the report draws them), written into ``plot_dir``: what ``--plot DIR`` of a
    family's command writes, into ``plot_dir/<results folder>/`` as in the report (families sharing a
    ``--plot`` folder keep their own figures). [] when ``results_dir`` holds none of the family's results."""
    from benchmarks.report.load import family_folders, read_family
    from benchmarks.report.sections import builder
    from tom_envs.family import family as declared

    folder = declared(family).results_folder
    results_dir, plot_dir = Path(results_dir), Path(plot_dir)
    if not results_dir.is_dir() or folder not in family_folders(results_dir):
        return []
    from benchmarks.report import figures

    (plot_dir / folder).mkdir(parents=True, exist_ok=True)
    with figures.planned() as plan:
        section = builder(folder)(read_family(results_dir, folder), plot_dir / folder, plot_dir)
    figures.draw_all(plan, figures.assign_colours([job.agents for job in plan]))
    return [plot_dir / src for src in section.get("figures", [])]


def _page(results_dir: Path, sections: list[dict[str, Any]], overview: bool) -> list[dict[str, Any]]:
    from benchmarks.results import current_command, git_commit
    from tom_envs import __version__

    commit = git_commit()
    blocks: list[dict[str, Any]] = [
        {
            "kind": "p",
            "text": (
                f"Generated {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())} from the results in "
                f"{results_dir} by tom-envs {__version__}"
                + (f" (commit {commit[:12]})" if commit else " (not a git checkout)")
                + f"; {sum(s.get('records', 0) for s in sections)} records in {len(sections)} result folders. Every number "
                "is computed from the stored records (nothing is rerun); yellow italic rows are published reference "
                "values from the papers."
            ),
        }
    ]
    blocks.append({"kind": "code", "text": " ".join(current_command())})
    blocks.append({"kind": "h2", "text": "At a glance: literal vs functional ToM", "id": "glance"})
    if overview:
        blocks += [
            {
                "kind": "p",
                "text": (
                    "004's point: predicting the other agents (literal ToM) and acting well on it (functional ToM) do not "
                    "imply each other. Each panel puts every evaluated agent at (prediction accuracy, functional score) "
                    "with 95 % CI whiskers; hollow stars are the papers' published agents where they report both, dashed "
                    "lines exact references where a family has them. The functional axis is each family's own, named on "
                    "its panel (e.g. regret per round, consensus change, success). Families whose tasks measure literal "
                    "ToM only (question answering) have no panel."
                ),
            },
            {
                "kind": "figure",
                "src": "overview.png",
                "caption": "Literal (x) vs functional (y) ToM per family and game; regret axes are inverted so "
                "that up is better everywhere.",
            },
        ]
    else:
        blocks.append({"kind": "p", "text": "No stored results with both a literal and a functional ToM score yet."})
    if not sections:
        blocks.append({"kind": "p", "text": f"No results files (*.jsonl) under {results_dir}/<family>/ yet."})
    for s in sections:
        blocks.append({"kind": "h2", "text": s["title"], "id": s["family"]})
        blocks += s["blocks"]
    blocks.append({"kind": "h2", "text": "Provenance", "id": "provenance"})
    for s in sections:
        blocks.append({"kind": "h3", "text": s["title"]})
        blocks += s.get("provenance", [])
    return blocks


# ---------------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs report``'s options."""
    from benchmarks.cli import add_format_option
    from benchmarks.cli_types import output_dir

    parser.add_argument("results", metavar="RESULTS_DIR", help="the --out folder of benchmark runs (e.g. results)")
    parser.add_argument(
        "--out", type=output_dir, default="report", help="where index.html, index.md and the figures go"
    )
    parser.add_argument("--force", action="store_true", help="rebuild every family's section, changed or not")
    add_format_option(parser)


def run(args: argparse.Namespace) -> int:
    """Build the report; prints the page's path (and what was rebuilt), or JSON with ``--format json``."""
    res = build_report(Path(args.results), Path(args.out), force=args.force)
    if args.format == "json":
        print(
            json.dumps({k: ([str(p) for p in v] if isinstance(v, list) else str(v)) for k, v in res.items()}, indent=2)
        )
    else:
        if res["rebuilt"]:
            print(
                f"rebuilt: {', '.join(res['rebuilt'])}"
                + (f"; unchanged: {', '.join(res['reused'])}" if res["reused"] else "")
            )
        elif res["reused"]:
            print(f"unchanged: {', '.join(res['reused'])}")
        print(f"report: {res['index'].resolve()}")
    return 0
