"""``common-ground``'s data jobs (:class:`benchmarks.family.Job`): ``--counts`` (003's Tables 2 and 5 beside the
published counts), ``--export`` (the questions generated from the corpus, in the release's format) and
``--export-beliefs`` (belief-prediction training data); each prints or writes data and plays no policy."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from benchmarks.common_ground.published import PUBLISHED_TABLE2, PUBLISHED_TABLE5
from tom_envs.common_ground.env import load_split
from tom_envs.common_ground.questions import export_questions
from tom_envs.errors import TomEnvsError


class CommonGroundBenchmarkError(TomEnvsError, ValueError):
    """Bad arguments to ``python -m benchmarks common-ground``."""


def partial_note(differences: Sequence[str]) -> None:
    """The stderr note of a run on data that is not the whole release (``--allow-partial``): what differs,
    and that its rows and records are marked ``partial``."""
    if differences:
        print(
            "note: --allow-partial: this data is not the whole release, so every row and record of this run is "
            "marked partial:\n  " + "\n  ".join(differences),
            file=sys.stderr,
        )


def export(args: argparse.Namespace) -> int:
    """``--export OUT_DIR`` (with ``--from-corpus``): write the generated question files; prints what it wrote."""
    if not args.from_corpus:
        raise TomEnvsError("--export writes questions generated from the corpus; add --from-corpus")
    paths = export_questions(args.data_dir, args.export)
    if args.format == "json":
        print(json.dumps({"exported": [str(p) for p in paths]}, indent=2))
    else:
        print("\n".join(f"wrote {p}" for p in paths))
    return 0


def counts(args: argparse.Namespace) -> dict[str, list[dict]]:
    """Tables 2 and 5 of ``--data-dir`` (train and test splits), each row with its ``published`` count
    (None where 003 has no such row); Table 5 also lists 003's rows this folder lacks (count 0)."""
    from tom_envs.common_ground.counts import load_counts

    found = load_counts(args.data_dir, args.from_corpus, args.annotator, allow_partial(args))
    partial_note(found["partial"])
    table2 = [{**r, "published": PUBLISHED_TABLE2.get((r["split"], r["answer"]))} for r in found["table2"]]
    keys = ("belief_A", "belief_B", "cg_A", "cg_B")
    table5 = [{**r, "published": PUBLISHED_TABLE5.get(tuple(r[k] for k in keys))} for r in found["table5"]]
    seen = {tuple(r[k] for k in keys) for r in table5}
    table5 += [
        {**dict(zip(keys, labels)), "count": 0, "published": n}
        for labels, n in PUBLISHED_TABLE5.items()
        if labels not in seen
    ]
    return {
        "table2": table2,
        "table5": table5,
        "partial": bool(found["partial"]),
        "release_differences": found["partial"],
    }


def print_counts(args: argparse.Namespace) -> int:
    """``--counts``: Tables 2 and 5 of ``--data-dir`` beside 003's (:func:`counts`), as text or JSON."""
    tables = counts(args)
    if args.format == "json":
        print(json.dumps(tables, indent=2))
        return 0

    def pub(value: int | None) -> str:
        return "-" if value is None else str(value)

    lines = ["Table 2: questions by split and answer", f"{'split':<6} {'answer':<6} {'count':>6} {'003':>6}"]
    lines += [f"{r['split']:<6} {r['answer']:<6} {r['count']:>6} {pub(r['published']):>6}" for r in tables["table2"]]
    lines += [
        "",
        "Table 5: questions by the speakers' labels (train and test)",
        f"{'Bel(A)':<6} {'Bel(B)':<6} {'CG(A)':<6} {'CG(B)':<6} {'count':>6} {'003':>6}",
    ]
    lines += [
        f"{r['belief_A']:<6} {r['belief_B']:<6} {r['cg_A']:<6} {r['cg_B']:<6} {r['count']:>6} {pub(r['published']):>6}"
        for r in tables["table5"]
    ]
    total = sum(r["count"] for r in tables["table5"])
    lines.append(f"{'Total':<27} {total:>6} {sum(PUBLISHED_TABLE5.values()):>6}")
    source = "generated from cg/" if args.from_corpus else "questions/"
    lines.append(
        f"data: {args.data_dir or 'bundled sample'} ({source})"
        + (" -- partial: not the whole release (--allow-partial; see the note on stderr)" if tables["partial"] else "")
    )
    print("\n".join(lines))
    return 0


def export_beliefs(args: argparse.Namespace) -> int:
    """``--export-beliefs OUT``: one JSONL line per event and sentence of ``--split`` (prompt, target, gold labels)."""
    from policies.common_ground.llm import belief_prompt, belief_target
    from tom_envs.common_ground.env import cut_context
    from tom_envs.common_ground.questions import parse_question

    questions = load_split(
        args.data_dir, args.split, args.from_corpus, args.annotator, allow_partial=allow_partial(args)
    )
    seen: set[tuple[int, int, float]] = set()
    lines = []
    for cid in sorted(questions):
        for row in questions[cid]:
            key = (row.cid, row.sno, row.eno)
            if key in seen:
                continue
            seen.add(key)
            context, event = cut_context(row.context, args.context), parse_question(row.question).event
            lines.append(
                {
                    "cid": row.cid,
                    "sno": row.sno,
                    "eno": row.eno,
                    "annotator": row.annotator,
                    "context_mode": args.context,
                    "context": context,
                    "event": event,
                    "prompt": belief_prompt(context, event),
                    "target": belief_target(row.belief_A, row.belief_B),
                    "belief_A": row.belief_A,
                    "belief_B": row.belief_B,
                    "cg_A": row.cg_A,
                    "cg_B": row.cg_B,
                }
            )
    out = Path(args.export_beliefs)
    if out.is_dir():
        raise CommonGroundBenchmarkError(f"--export-beliefs {out}: is a folder; name a .jsonl file")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    if args.format == "json":
        print(json.dumps({"exported": str(out), "examples": len(lines)}, indent=2))
    else:
        print(f"wrote {len(lines)} belief-prediction examples ({args.split} split) to {out}")
    return 0


def allow_partial(args: argparse.Namespace) -> bool:
    """``--allow-partial`` (False for callers whose namespace predates it)."""
    return bool(getattr(args, "allow_partial", False))
