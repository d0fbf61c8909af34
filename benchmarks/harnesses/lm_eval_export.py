"""``tom-envs export lm-eval DIR``: the QA families as lm-evaluation-harness tasks.

Examples::

    tom-envs export lm-eval tasks/                                  # every QA family, bundled samples
    tom-envs export lm-eval tasks/ --family persuasion --data-dir path/to/PersuasiveToM/data
    lm_eval --model hf --model_args pretrained=MODEL --include_path tasks/ --tasks GROUP_OR_TASK \\
        --apply_chat_template --log_samples --output_path out/

Each family with an export (an ``lm_eval`` module beside its benchmark module, e.g.
``benchmarks.<family>.lm_eval``, :mod:`benchmarks.harnesses.lm_eval_family`)
gets a folder ``DIR/<prefix>/``: one task YAML per question type (``<prefix>_<type>``), a group
YAML (``<prefix>``), the questions as JSONL (``data/<type>.jsonl``, one row per question with its
prompt exactly as the suite sends it under the authors' protocol), ``scoring.json`` and a two-line
``utils.py`` whose hooks score the replies with the suite's own code
(:mod:`benchmarks.harnesses.lm_eval_scoring`). ``DIR/manifest.json`` says what was exported: from
which data, which split, the prompts' source and digest, the counts, and the code version.

The tasks generate (``output_type: generate_until``) with the authors' request parameters, as the
authors' protocols do; the system message, where a protocol has one, is the task's ``description``,
which lm-eval sends as the system message with ``--apply_chat_template``. See docs/harnesses.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.cli import Command
from benchmarks.cli_types import output_dir
from benchmarks.harnesses.lm_eval_family import (
    FamilyExport,
    LMEvalExportError,
    LMEvalFamily,
    Metric,
    Source,
    TaskData,
    adapters,
)
from benchmarks.harnesses.lm_eval_scoring import AGG_PREFIX, SCORING_FILE, hook_name
from tom_envs.errors import TomEnvsError

MANIFEST = "manifest.json"
#: Written into every family folder the export makes: a later export replaces only folders that have it.
MARKER = ".tom_envs_lm_eval"
HARNESS = "lm-eval"
TASK_VERSION = 1.0


@dataclass(frozen=True)
class ExportRequest:
    """What ``tom-envs export lm-eval`` is asked for.

    Attributes:
        out: the folder to write (made if missing; a file is an error).
        families: the families' command names (empty: every family with an export).
        source: the data and protocol options (:class:`~benchmarks.harnesses.lm_eval_family.Source`).
    """

    out: str | Path
    families: Sequence[str] = ()
    source: Source = Source()


# ---------------------------------------------------------------------- choosing the families
def chosen(request: ExportRequest) -> list[tuple[Any, LMEvalFamily]]:
    """The (family, export) pairs of ``request``, checked against its options.

    Raises:
        LMEvalExportError: an unknown family; a split, mode or option that a chosen family does not
            have; ``--data-dir`` or ``--authors-prompts`` with more than one family.
    """
    found = adapters()
    by_name = {fam.name: command for command, (fam, _) in found.items()}  # a family's name works as its command
    names = [by_name.get(n, n) for n in request.families] or list(found)
    unknown = [n for n in names if n not in found]
    if unknown:
        raise LMEvalExportError(
            f"unknown family {unknown[0]!r} for the lm-eval export; choose from {', '.join(found) or '(none declared)'}"
        )
    pairs = [found[n] for n in dict.fromkeys(names)]
    src = request.source
    if len(pairs) > 1 and (src.data_dir is not None or src.authors_prompts is not None):
        raise LMEvalExportError(
            f"--data-dir and --authors-prompts name one family's data; add --family ({' or '.join(found)})"
        )
    for fam, adapter in pairs:
        if src.split is not None and src.split not in adapter.splits:
            raise LMEvalExportError(
                f"--split {src.split}: {fam.command} has the splits {', '.join(adapter.splits)}"
                + ("; add --family" if len(pairs) > 1 else "")
            )
        if src.qa_mode not in adapter.modes:
            raise LMEvalExportError(
                f"--qa-mode {src.qa_mode}: {fam.command}'s authors' protocol has "
                f"{', '.join(adapter.modes)}" + ("; add --family" if len(pairs) > 1 else "")
            )
    return pairs


# ---------------------------------------------------------------------- writing
def export(request: ExportRequest) -> dict[str, Any]:
    """Write the tasks of ``request`` and return the manifest (also written to ``out/manifest.json``).

    Raises:
        LMEvalExportError: bad options (:func:`chosen`), ``out`` is a file, or a family's folder in
            ``out`` holds files the export did not write.
        TomEnvsError: the family's own named errors on its data (a folder without the files, ...).
    """
    out = Path(request.out).expanduser()
    _check_out(out)
    pairs = chosen(request)
    for _, adapter in pairs:
        folder = out / adapter.prefix
        if folder.exists() and not (folder / MARKER).is_file():
            raise LMEvalExportError(
                f"{folder} exists and was not written by tom-envs export lm-eval; remove it or "
                "choose another output folder"
            )
    exports = [(fam, adapter, adapter.export(request.source)) for fam, adapter in pairs]  # all data read first
    out.mkdir(parents=True, exist_ok=True)
    entries = [_write_family(out, fam, adapter, data) for fam, adapter, data in exports]
    written = {e["family"] for e in entries}
    kept = [
        e
        for e in _read_manifest(out).get("families", [])
        if e.get("family") not in written and (out / str(e.get("folder", ""))).is_dir()
    ]  # a former export of another family, still there
    order = [fam.name for fam, _ in adapters().values()]
    families = sorted(kept + entries, key=lambda e: order.index(e["family"]) if e["family"] in order else len(order))
    manifest = {
        "harness": HARNESS,
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "code": _code(),
        "include_path": str(out.resolve()),
        "families": families,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def _check_out(out: Path) -> None:
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == out else f"is inside {p}, which is a file"
                raise LMEvalExportError(f"the output folder {out} {what}; give a folder")
            return


def _read_manifest(out: Path) -> dict[str, Any]:
    try:
        return json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _code() -> dict[str, Any]:
    from benchmarks.results import code_stamp

    return code_stamp()


def _write_family(out: Path, fam: Any, adapter: LMEvalFamily, data: FamilyExport) -> dict[str, Any]:
    folder = out / adapter.prefix
    if folder.exists():  # a former export of this family (checked by export()): replaced whole, no stale task
        shutil.rmtree(folder)
    (folder / "data").mkdir(parents=True)
    (folder / MARKER).write_text("written by tom-envs export lm-eval\n", encoding="utf-8")
    suite = sorted({m.name for t in data.tasks for m in t.metrics if m.aggregation == "suite"})
    (folder / SCORING_FILE).write_text(
        json.dumps(dict(data.scoring), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    hooks = {t.suffix: [m.name for m in t.metrics] for t in data.tasks if t.docs}
    (folder / "utils.py").write_text(_utils_py(fam.name, hooks, suite), encoding="utf-8")
    tasks = {}
    for task in data.tasks:
        if not task.docs:
            continue
        name = f"{adapter.prefix}_{task.suffix}"
        path = folder / "data" / f"{task.suffix}.jsonl"
        text = "".join(json.dumps(dict(doc), ensure_ascii=False) + "\n" for doc in task.docs)
        path.write_text(text, encoding="utf-8")
        (folder / f"{name}.yaml").write_text(task_yaml(name, task, data, path.resolve()), encoding="utf-8")
        tasks[name] = {
            "questions": len(task.docs),
            "file": str(path.relative_to(out)),
            "in_group": task.in_group,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "metrics": [m.name for m in task.metrics],
        }
    members = [name for name, t in tasks.items() if t["in_group"]]
    (folder / f"_{adapter.prefix}.yaml").write_text(
        group_yaml(adapter.prefix, members, data.group_metrics), encoding="utf-8"
    )
    return {
        "family": fam.name,
        "command": fam.command,
        "folder": adapter.prefix,
        "group": adapter.prefix,
        "group_metrics": list(data.group_metrics),
        "generation_kwargs": dict(data.generation),
        **dict(data.info),
        "questions": sum(t["questions"] for t in tasks.values() if t["in_group"]),
        "tasks": tasks,
    }


# ---------------------------------------------------------------------- the files lm-eval reads
def _q(value: Any) -> str:
    """A YAML scalar (JSON is YAML: strings quoted and escaped, numbers and booleans as they are)."""
    return json.dumps(value, ensure_ascii=False)


def task_yaml(name: str, task: TaskData, data: FamilyExport, data_file: Path) -> str:
    """The YAML of one task (``generate_until``, scored by the family's hooks in ``utils.py``)."""
    first = task.docs[0]
    lines = [
        f"# written by tom-envs export lm-eval: {len(task.docs)} questions; edit the export, not this file",
        f"task: {_q(name)}",
    ]
    if task.alias:
        lines.append(f"task_alias: {_q(task.alias)}")
    lines += [
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {_q(str(data_file))}",
        "test_split: test",
        "output_type: generate_until",
        "doc_to_text: prompt",
        "doc_to_target: answer",
    ]
    if "system" in first:
        lines.append("description: system  # the document's field: the system message with --apply_chat_template")
    lines += ["num_fewshot: 0", "generation_kwargs:"]
    lines += [f"  {k}: {_q(v)}" for k, v in data.generation.items()]
    lines += [f"process_results: !function utils.{hook_name(task.suffix)}", "metric_list:"]
    for m in task.metrics:
        agg = "mean" if m.aggregation == "mean" else f"!function utils.{AGG_PREFIX}{m.name}"
        lines += [f"  - metric: {m.name}", f"    aggregation: {agg}", f"    higher_is_better: {_q(m.higher_is_better)}"]
    lines += ["metadata:", f"  version: {TASK_VERSION}"]
    return "\n".join(lines) + "\n"


def group_yaml(group: str, members: Sequence[str], metrics: Sequence[str]) -> str:
    """The YAML of a family's group: its tasks, and the metrics it pools (weighted by size)."""
    lines = ["# written by tom-envs export lm-eval", f"group: {_q(group)}", "task:"]
    lines += [f"  - {_q(m)}" for m in members]
    if metrics:
        lines.append("aggregate_metric_list:")
        for m in metrics:
            lines += [f"  - metric: {m}", "    aggregation: mean", "    weight_by_size: true"]
    lines += ["metadata:", f"  version: {TASK_VERSION}"]
    return "\n".join(lines) + "\n"


def _utils_py(family: str, tasks: Mapping[str, Sequence[str]], suite_metrics: Sequence[str]) -> str:
    return (
        f'"""lm-eval\'s hooks for these tasks (written by tom-envs export lm-eval): the replies are scored by\n'
        f'tom-envs\' own code (benchmarks.harnesses.lm_eval_scoring), which must be importable here."""\n\n'
        f"from pathlib import Path\n\n"
        f"from benchmarks.harnesses.lm_eval_scoring import hooks\n\n"
        f"TASKS = {dict(tasks)!r}\n"
        f"globals().update(hooks({family!r}, Path(__file__).with_name({SCORING_FILE!r}), TASKS, "
        f"{list(suite_metrics)!r}))\n"
    )


# ---------------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs export``'s options: one sub-command per harness (``lm-eval``)."""
    sub = parser.add_subparsers(dest="harness", required=True, metavar="HARNESS")
    lm = sub.add_parser(
        HARNESS,
        help="write lm-evaluation-harness tasks (YAML + JSONL) of the QA families",
        description=__doc__,
        formatter_class=parser.formatter_class,
    )
    lm.add_argument("out", metavar="DIR", type=output_dir, help="the folder to write (lm_eval --include_path DIR)")
    lm.add_argument(
        "--family",
        default=None,
        help=f"one family to export ({', '.join(adapters()) or 'none declared'}); default: every one",
    )
    lm.add_argument(
        "--data-dir",
        default=None,
        help="the family's data folder, a copy of the authors' release (needs --family when more than "
        "one family has an export); default: the bundled sample",
    )
    lm.add_argument(
        "--split",
        default=None,
        help="the family's split, as its benchmark names them (default: the benchmark's default)",
    )
    lm.add_argument(
        "--authors-prompts",
        default=None,
        metavar="PATH",
        help="a family whose authors' prompts are read from a release file: read them from PATH "
        "(default: where its benchmark looks, next to --data-dir)",
    )
    lm.add_argument(
        "--system-in-user",
        action="store_true",
        help="a protocol with a system message: put its text into the user message instead (the "
        "release's layout for models without a system role)",
    )
    lm.add_argument(
        "--qa-mode",
        default="zero_shot",
        help="the authors' protocol's mode: zero_shot or cot (where the family's protocol has it)",
    )
    lm.add_argument("--format", choices=("text", "json"), default="text", help="text: a summary; json: the manifest")


def run(args: argparse.Namespace) -> int:
    """Run ``tom-envs export lm-eval``; prints a summary (or the manifest) and returns the exit status
    (2 with ``error: ...`` on bad input or data)."""
    source = Source(args.data_dir, args.split, args.authors_prompts, bool(args.system_in_user), args.qa_mode)
    request = ExportRequest(args.out, () if args.family is None else (args.family,), source)
    try:
        names = [fam.name for fam, _ in chosen(request)]
        manifest = export(request)
    except TomEnvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(manifest, indent=2, ensure_ascii=False))
    else:
        print(summary(manifest, names))
    return 0


def summary(manifest: Mapping[str, Any], families: Sequence[str]) -> str:
    """What was written, one line per task, and the command that runs it."""
    out = manifest["include_path"]
    lines = []
    for fam in (f for f in manifest["families"] if f["family"] in families):
        lines.append(
            f"{fam['command']}: group {fam['group']} ({fam['questions']} questions, split {fam['split']}, "
            f"data {fam['data_dir'] or 'bundled sample'}, prompts {fam['prompt_source']})"
        )
        lines += [f"  {name}: {t['questions']} questions" for name, t in fam["tasks"].items()]
    lines.append(
        f"wrote {Path(out) / MANIFEST}; run: lm_eval --model ... --include_path {out} --tasks GROUP "
        "--apply_chat_template --log_samples --output_path OUT (docs/harnesses.md)"
    )
    return "\n".join(lines)


EXPORT = Command(
    name="export",
    help="export the QA families as tasks of another evaluation harness (lm-eval)",
    add_arguments=add_arguments,
    run=run,
    description=__doc__,
)

__all__ = [
    "EXPORT",
    "MANIFEST",
    "ExportRequest",
    "Metric",
    "Source",
    "add_arguments",
    "chosen",
    "export",
    "group_yaml",
    "run",
    "summary",
    "task_yaml",
]
