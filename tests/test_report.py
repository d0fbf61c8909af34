"""``tom-envs report``: a report over small real runs of every family.

The runs are real: the four family commands through ``tom-envs`` (scripted matrix policies and
mediators, the scripted QA answerers of both QA families, the scripted live persuaders, and LLM
policies on a scripted loopback OpenAI-shaped server for the matrix games, the negotiation mediator,
both QA families and the live persuader). The page must parse (stdlib ``html.parser``), reference every figure it wrote
(and nothing missing), and show in its tables exactly the numbers recomputed here from the
results files. Regeneration is incremental, and the report never changes or locks a results file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from benchmarks.__main__ import main
from benchmarks.report import build_report
from benchmarks.matrix.report import PARTNER_MEAN_LABEL
from benchmarks.results import locked, runs_path
from tests.llm.scripted_server import ScriptedServer
from tom_envs.common_ground import SAMPLE_DATA_DIR as CG_SAMPLE
from tom_envs.matrix.partners import resolve_partners

EXACT = 1e-9


def _reply(content: str, seed: int | None) -> str:
    """QA questions: always the first option; matrix games: always Rock (parsed as both prediction and action)."""
    return "The answer is A." if "Options:" in content else "Rock"


def _tom_envs(*argv: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(list(argv)) == 0
    return buf.getvalue()


#: The scripted QA and live persuasion runs (rerun by the resume test).
SCRIPTED_QA_AND_LIVE = (
    ["common-ground", "--policy", "random,oracle-beliefs,predicted-beliefs", "--episodes", "2"],
    ["persuasion", "--env", "qa", "--policy", "random,always-first", "--repetitions", "2"],
    [
        "persuasion",
        "--env",
        "live",
        "--live-env",
        "tom/Persuasion-v1",
        "--policy",
        "random,open-loop,bayes,oracle",
        "--episodes",
        "3",
        "--horizon",
        "3",
        "--families",
        "health,charity",
    ],
)


def _runs(res: Path, data: Path) -> dict[str, str]:
    """Every run into ``res``; the printed JSON of the scripted QA and live runs, by command line."""
    server = ScriptedServer(_reply)
    llm = ["--backend", "openai", "--base-url", server.url, "--model", "scripted"]
    printed = {}
    try:
        for argv in (
            [*a, *(["--data-dir", str(data)] if a[0] == "common-ground" else [])] for a in SCRIPTED_QA_AND_LIVE
        ):
            printed[" ".join(argv)] = _tom_envs(*argv, "--out", str(res), "--format", "json")
        for argv in (
            [
                "matrix",
                "--games",
                "RPS,IPD",
                "--partners",
                "single_action,tit_for_tat",
                "--policy",
                "tabular,random",
                "--episodes",
                "4",
                "--horizon",
                "10",
            ],
            [
                "matrix",
                "--policy",
                "llm",
                *llm,
                "--strategies",
                "qa",
                "--games",
                "RPS",
                "--partners",
                "tit_for_tat",
                "--episodes",
                "2",
                "--horizon",
                "5",
                "--label-set",
                "canonical",
                "--fallback",
                "random",
                "--max-resamples",
                "0",
            ],
            [
                "negotiation",
                "--policy",
                "none,social",
                "--mode",
                "hard",
                "--scenarios",
                "hopkins_hmo",
                "--episodes",
                "2",
            ],
            [
                "negotiation",
                "--policy",
                "llm-social",
                *llm,
                "--fallback",
                "random",
                "--mode",
                "hard",
                "--scenarios",
                "hopkins_hmo",
                "--episodes",
                "1",
            ],  # its replies never parse: every decision is a counted fallback
            [
                "common-ground",
                "--policy",
                "llm",
                *llm,
                "--qa-mode",
                "zero_shot",
                "--no-scoring",
                "--data-dir",
                str(data),
            ],
            [
                "persuasion",
                "--env",
                "qa",
                "--policy",
                "llm",
                *llm,
                "--qa-mode",
                "zero_shot",
                "--no-scoring",
                "--repetitions",
                "2",
            ],
            [
                "persuasion",
                "--env",
                "live",
                "--live-env",
                "tom/Persuasion-v1",
                "--policy",
                "llm",
                *llm,
                "--fallback",
                "random",
                "--max-resamples",
                "0",
                "--episodes",
                "2",
                "--horizon",
                "3",
                "--families",
                "health",
            ],
        ):
            _tom_envs(*argv, "--out", str(res), "--format", "json")
    finally:
        server.close()
    return printed


@pytest.fixture(scope="module")
def built(tmp_path_factory, monkeypatch_module):
    root = tmp_path_factory.mktemp("report")
    data = root / "cg_data"
    shutil.copytree(CG_SAMPLE, data)
    runs = _runs(root / "res", data)
    out = root / "report"
    printed = _tom_envs("report", str(root / "res"), "--out", str(out))
    return root, out, printed, data, runs


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    mp.delenv("OPENAI_API_KEY", raising=False)
    yield mp
    mp.undo()


class Page(HTMLParser):
    """The parts of the page the tests read: tables (cells with their attributes), images, links."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self.images: list[str] = []
        self.anchors: list[str] = []
        self.ids: set[str] = set()
        self.stack: list[str] = []
        self._cell: dict | None = None
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in ("meta", "img", "br"):
            self.stack.append(tag)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self.tables.append({"caption": "", "columns": [], "rows": []})
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append({"ref": a.get("class") == "ref", "cells": []})
        elif tag in ("td", "th"):
            self._cell = {"text": "", **a}
        elif tag == "img":
            self.images.append(a["src"])
        elif tag == "a" and "href" in a:
            self.anchors.append(a["href"])

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()
        if tag == "caption":
            self._in_caption = False
        elif tag == "tr" and not self.tables[-1]["rows"][-1]["cells"]:  # the header row
            self.tables[-1]["rows"].pop()
        elif tag in ("td", "th") and self._cell is not None:
            if tag == "th":
                self.tables[-1]["columns"].append(self._cell["text"])
            else:
                self.tables[-1]["rows"][-1]["cells"].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        elif self._in_caption:
            self.tables[-1]["caption"] += data


def _page(out: Path) -> Page:
    page = Page()
    page.feed((out / "index.html").read_text(encoding="utf-8"))
    page.close()
    assert page.stack == [], f"unclosed tags: {page.stack}"
    return page


def _table(page: Page, caption_start: str) -> list[dict[str, dict]]:
    (table,) = [t for t in page.tables if t["caption"].startswith(caption_start)]
    return [{"ref": r["ref"], **dict(zip(table["columns"], r["cells"]))} for r in table["rows"]]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _value(cell: dict) -> float:
    return float(cell["data-value"])


# ---------------------------------------------------------------------- the page
def test_the_page_carries_every_stylesheet_rule_on_one_line():
    """The page holds the compact form of benchmarks.report.doc.CSS: the same rules, whitespace runs collapsed."""
    from benchmarks.report.doc import CSS, to_html

    page = to_html("title", [{"kind": "p", "text": "text"}])
    start, end = page.index("<style>") + len("<style>"), page.index("</style>")
    style = page[start:end]
    assert "\n" not in style and style.split() == CSS.split() and "span.n { white-space: nowrap; }" in style


def test_the_page_parses_and_references_every_figure(built):
    root, out, printed, _, _ = built
    assert f"report: {(out / 'index.html').resolve()}" in printed
    page = _page(out)
    pngs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    assert sorted(page.images) == pngs  # every figure written is shown, each once
    assert {
        "overview.png",
        "matrix/plane.png",
        "negotiation/plane.png",
        "negotiation/consensus.png",
        "common_ground/stages.png",
        "persuasion/stages.png",
        "persuasion/live_plane.png",
        "matrix/rounds_RPS_tit_for_tat.png",
        "matrix/rounds_IPD_single_action.png",
    } <= set(pngs)
    for src in pngs:
        assert (out / src).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(a.lstrip("#") in page.ids for a in page.anchors)  # the contents links land
    md = (out / "index.md").read_text(encoding="utf-8")
    assert sorted(line.split("](", 1)[1].split(")", 1)[0] for line in md.splitlines() if line.startswith("![")) == pngs
    for table in page.tables:  # the Markdown has the same tables
        assert f"**{table['caption']}**" in md


def test_matrix_table_equals_the_results_files(built):
    root, out, _, _, _ = built
    rows = [r for r in _table(_page(out), "Matrix games: regret") if not r["ref"]]
    by_partner = _table(_page(out), "Matrix games: by partner")
    files = sorted((root / "res" / "matrix").glob("*.jsonl"))
    assert len(rows) == len(files) == 9
    weighted_cells: list[str] = []
    for path in files:
        recs = _records(path)
        cell = recs[0]["cell"]
        (row,) = [
            r
            for r in rows
            if (r["game"]["text"], r["partners"]["text"], r["policy"]["text"])
            == (cell["game"], cell["partners"], cell["policy"])
        ]
        eps = [r["episode"] for r in recs]
        assert int(row["episodes"]["text"]) == len(eps)
        assert _value(row["ΔFunctional/T"]) == pytest.approx(mean(e["regret_per_step"] for e in eps), abs=EXACT)
        assert _value(row["ToM %"]) == pytest.approx(mean(e["tom_accuracy"] for e in eps), abs=EXACT)
        assert _value(row["ΔToM/T (reciprocal)"]) == pytest.approx(
            mean(e["tom_regret_per_step_reciprocal"] for e in eps), abs=EXACT
        )
        partners = sorted({e["partner"] for e in eps})
        for name in partners if len(partners) > 1 else []:
            mine = [e for e in eps if e["partner"] == name]
            (sub,) = [
                r
                for r in by_partner
                if (r["game"]["text"], r["partners"]["text"], r["agent"]["text"], r["partner"]["text"])
                == (cell["game"], cell["partners"], cell["policy"], name)
            ]
            assert int(sub["episodes"]["text"]) == len(mine)
            assert _value(sub["ΔFunctional/T"]) == pytest.approx(mean(e["regret_per_step"] for e in mine), abs=EXACT)
            assert _value(sub["ToM %"]) == pytest.approx(mean(e["tom_accuracy"] for e in mine), abs=EXACT)
        weighted = [
            r
            for r in by_partner
            if (r["game"]["text"], r["partners"]["text"], r["agent"]["text"], r["partner"]["text"])
            == (cell["game"], cell["partners"], cell["policy"], PARTNER_MEAN_LABEL)
        ]
        if len(partners) > 1 and partners == sorted(resolve_partners(cell["game"], cell["partners"]).names):
            (w,) = weighted  # these populations are uniform: the plain mean of the partners' means
            weighted_cells.append(cell["game"])
            for col, key in (
                ("ΔFunctional/T", "regret_per_step"),
                ("ToM %", "tom_accuracy"),
                ("ΔToM/T (reciprocal)", "tom_regret_per_step_reciprocal"),
            ):
                assert _value(w[col]) == pytest.approx(
                    mean(mean(e[key] for e in eps if e["partner"] == n) for n in partners), abs=EXACT
                )
        else:
            assert not weighted
        if cell["policy"].startswith("llm"):
            assert row["model"]["text"] == "scripted" and row["parties"]["text"] == "LLM"
            assert int(row["fallbacks"]["text"]) == sum(e["policy_stats"]["fallbacks"] for e in eps)
        else:
            assert row["fallbacks"]["text"] == "-"
    assert weighted_cells  # some cell drew every partner of its population
    refs = [r for r in _table(_page(out), "Matrix games: regret") if r["ref"]]
    assert {(r["game"]["text"], r["partners"]["text"], _value(r["ΔFunctional/T"])) for r in refs} == {
        ("RPS", "single_action", 0.083),
        ("RPS", "tit_for_tat", 0.224),
        ("IPD", "single_action", 0.086),
        ("IPD", "tit_for_tat", 0.248),
    }
    assert len(by_partner) >= 2  # the single-action populations drew more than one partner


def test_negotiation_table_equals_the_results_files(built):
    root, out, _, _, _ = built
    rows = _table(_page(out), "Negotiation: 002 Table 1")
    for path in sorted((root / "res" / "negotiation").glob("*.jsonl")):
        recs = _records(path)
        eps = [r["episode"] for r in recs]
        llm = recs[0]["mediator"].startswith("llm")
        (row,) = [r for r in rows if not r["ref"] and r["mediator"]["text"].split(" ")[0] == recs[0]["mediator"]]
        assert int(row["episodes"]["text"]) == len(eps) == (1 if llm else 2)
        assert _value(row["CC % ↑"]) == pytest.approx(mean(100 * e["cc"] for e in eps), abs=EXACT)
        assert _value(row["TLE % ↑"]) == pytest.approx(mean(100 * e["tle_mean"] for e in eps), abs=EXACT)
        if llm:
            stats = [s for r in recs for s in r["llm_stats"].values()]
            assert row["LLM fallbacks/decisions"]["text"] == (
                f"{sum(s['fallbacks'] for s in stats)}/{sum(s['decisions'] for s in stats)}"
            )
            assert row["mediator"]["text"] == "llm-social (scripted)" and sum(s["fallbacks"] for s in stats) > 0
        if recs[0]["mediator"] != "none":
            assert _value(row["MI ↑"]) == pytest.approx(mean(e["mi_mean"] for e in eps), abs=EXACT)
            assert _value(row["mediator ToM %"]) == pytest.approx(mean(100 * e["tom_accuracy"] for e in eps), abs=EXACT)
        else:
            assert row["MI ↑"]["text"] == row["mediator ToM %"]["text"] == "n/a"
    refs = [r for r in rows if r["ref"]]
    assert [r["mediator"]["text"] for r in refs] == [
        "002 none (GPT-4.1, published)",
        "002 social (GPT-4.1, published)",
    ]  # once, after social and llm-social
    assert _value(refs[1]["CC % ↑"]) == 10.65


def test_qa_tables_equal_the_results_files(built):
    root, out, _, data, _ = built
    page = _page(out)
    (path,) = (root / "res" / "common_ground").glob("llm_*.jsonl")
    questions = [q for rec in _records(path) for q in rec["questions"]]
    (row,) = [r for r in _table(page, "Common-ToM") if not r["ref"] and r["kind"]["text"] == "LLM"]
    for column, order in (("Total %", None), ("First %", 1), ("Second %", 2), ("Third %", 3)):
        mine = [q["correct"] for q in questions if order is None or q["order"] == order]
        assert _value(row[column]) == pytest.approx(100 * sum(mine) / len(mine), abs=EXACT)
    assert int(row["questions"]["text"]) == len(questions)
    assert int(row["fallbacks"]["text"]) == sum(q["fallback"] for q in questions) == 0
    assert row["answerer"]["text"] == "llm / scripted / zero_shot" and row["context"]["text"] == "window"
    assert len([r for r in _table(page, "Common-ToM") if r["ref"]]) == 7  # 003's Table 3

    (path,) = (root / "res" / "persuasion").glob("qa_llm_*.jsonl")
    recs = _records(path)
    (row,) = [r for r in _table(page, "PersuasiveToM: accuracy %") if not r["ref"] and r["kind"]["text"] == "LLM"]
    per_rep: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for rec in recs:
        for a in rec["answers"]:
            per_rep[a["qtype"]][rec["repetition"]].append(a["correct"])
    assert per_rep
    for qtype, reps in per_rep.items():
        assert _value(row[qtype]) == pytest.approx(mean(100 * sum(v) / len(v) for v in reps.values()), abs=EXACT)
    # 001's Figure 3 stages: the early/middle/late third (by rank) of the turns a dialogue asks that type at
    turns = defaultdict(set)
    for rec in recs:
        for a in rec["answers"]:
            turns[(rec["dialogue"], a["qtype"])].add(a["turn"])
    by_stage = defaultdict(lambda: defaultdict(list))
    for rec in recs:
        for a in rec["answers"]:
            ranked = sorted(turns[(rec["dialogue"], a["qtype"])])
            stage = ("early", "middle", "late")[min(2, 3 * ranked.index(a["turn"]) // len(ranked))]
            by_stage[(a["qtype"], stage)][rec["repetition"]].append(a["correct"])
    stages = [
        r
        for r in _table(page, "PersuasiveToM: accuracy and share of the errors by stage")
        if r["answerer"]["text"] == row["answerer"]["text"]
    ]
    assert len(stages) == len(by_stage)
    for r in stages:
        reps = by_stage[(r["question type"]["text"], r["stage"]["text"])]
        assert _value(r["accuracy %"]) == pytest.approx(mean(100 * sum(v) / len(v) for v in reps.values()), abs=EXACT)
    counts = [
        r
        for r in _table(page, "PersuasiveToM: counts")
        if not r["ref"] and r["answerer"]["text"] == row["answerer"]["text"]
    ]
    assert {r["question type"]["text"]: int(r["questions per pass"]["text"]) for r in counts} == {
        q: len(reps[0]) for q, reps in per_rep.items()
    }


def _stats(values: list) -> float:
    values = [v for v in values if v is not None]
    return mean(values)


def test_scripted_qa_rows_equal_the_results_files(built):
    root, out, _, _, runs = built
    page = _page(out)
    cg_rows = [r for r in _table(page, "Common-ToM") if not r["ref"] and r["kind"]["text"] == "scripted"]
    files = sorted((root / "res" / "common_ground").glob("scripted_*.jsonl"))
    assert len(files) == len(cg_rows) == 3
    (printed,) = [json.loads(v) for k, v in runs.items() if k.startswith("common-ground")]
    for path in files:
        recs = _records(path)
        policy = recs[0]["policy"]
        assert {r["policy"] for r in recs} == {policy} and len(recs) == 2  # one conversation, two passes
        (row,) = [r for r in cg_rows if r["answerer"]["text"] == policy]
        questions = [q for rec in recs for q in rec["questions"]]
        for column, order in (("Total %", "all"), ("First %", 1), ("Second %", 2), ("Third %", 3)):
            mine = [q["correct"] for q in questions if order == "all" or q["order"] == order]
            assert _value(row[column]) == pytest.approx(100 * sum(mine) / len(mine), abs=EXACT)
            (command,) = [r for r in printed if r["policy"] == policy and r["order"] == order]
            assert _value(row[column]) == pytest.approx(command["accuracy"], abs=EXACT)  # as the command printed
        assert int(row["questions"]["text"]) == len(questions) and row["fallbacks"]["text"] == "-"
    assert {r["answerer"]["text"] for r in cg_rows} == {"random", "oracle-beliefs", "predicted-beliefs"}

    qa_rows = [r for r in _table(page, "PersuasiveToM: accuracy %") if not r["ref"] and r["kind"]["text"] == "scripted"]
    files = sorted((root / "res" / "persuasion").glob("qa_*.jsonl"))
    files = [f for f in files if not f.name.startswith("qa_llm_")]
    assert len(files) == len(qa_rows) == 2
    (printed,) = [json.loads(v) for k, v in runs.items() if "--env qa" in k]
    for path in files:
        recs = _records(path)
        policy = recs[0]["policy"]
        (row,) = [r for r in qa_rows if r["answerer"]["text"] == policy]
        assert row["protocol"]["text"] == "ours"
        per_rep: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for rec in recs:
            for a in rec["answers"]:
                per_rep[a["qtype"]][rec["repetition"]].append(a["correct"])
        for qtype, reps in per_rep.items():
            assert len(reps) == 2
            assert _value(row[qtype]) == pytest.approx(mean(100 * sum(v) / len(v) for v in reps.values()), abs=EXACT)
            (command,) = [r for r in printed if r["policy"] == policy and r["qtype"] == qtype]
            assert _value(row[qtype]) == pytest.approx(command["accuracy"], abs=EXACT)
            assert float(row[qtype]["data-ci"]) == pytest.approx(command["accuracy_ci"], abs=EXACT)


def test_live_persuasion_rows_equal_the_results_files(built):
    root, out, _, _, runs = built
    page = _page(out)
    rows = _table(page, "Live persuasion: success, regret")
    (printed,) = [json.loads(v) for k, v in runs.items() if "--env live" in k]
    files = sorted((root / "res" / "persuasion").glob("live_*.jsonl"))
    assert len(files) == 5  # four scripted persuaders and the llm
    for path in files:
        recs = _records(path)
        policy = recs[0]["policy"]
        label = policy + (" (scripted)" if policy == "llm" else "")
        key = "oracle_regret" if recs[0]["regret_against"] == "oracle" else "regret"
        assert recs[0]["regret_against"] == ("oracle" if policy == "oracle" else "bayes")
        families = sorted({r["family"] for r in recs})
        assert families == (["health"] if policy == "llm" else ["charity", "health"])
        for family in [*families, "all"]:
            eps = [r["episode"] for r in recs if family == "all" or r["family"] == family]
            (row,) = [
                r for r in rows if not r["ref"] and r["persuader"]["text"] == label and r["family"]["text"] == family
            ]
            assert int(row["episodes"]["text"]) == len(eps)
            assert _value(row["success %"]) == pytest.approx(mean(100.0 * e["success"] for e in eps), abs=EXACT)
            assert _value(row["regret"]) == pytest.approx(mean(e[key] for e in eps), abs=EXACT)
            assert _value(row["fair regret"]) == pytest.approx(mean(e["regret"] for e in eps), abs=EXACT)
            for t in ("desire", "belief", "intention"):
                vals = [e[f"{t}_accuracy"] for e in eps if e[f"{t}_accuracy"] is not None]
                if vals:
                    assert _value(row[f"{t} ToM %"]) == pytest.approx(mean(vals), abs=EXACT)
                else:
                    assert row[f"{t} ToM %"]["text"] == "n/a"
            literal = [
                mean(v for v in (e[f"{t}_accuracy"] for t in ("desire", "belief", "intention")) if v is not None)
                for e in eps
                if any(e[f"{t}_accuracy"] is not None for t in ("desire", "belief", "intention"))
            ]
            if literal:
                assert _value(row["literal ToM %"]) == pytest.approx(mean(literal), abs=EXACT)
            if policy == "llm":
                stats = [r["llm_stats"] for r in recs if family == "all" or r["family"] == family]
                assert row["LLM fallbacks/decisions"]["text"] == (
                    f"{sum(s['fallbacks'] for s in stats)}/{sum(s['decisions'] for s in stats)}"
                )
                continue
            (command,) = [r for r in printed if r["policy"] == policy]  # the command's row says the same
            mine = command if family == "all" else command["by_family"][family]
            assert _value(row["success %"]) == pytest.approx(mine["success"], abs=EXACT)
            assert _value(row["regret"]) == pytest.approx(mine["regret"], abs=EXACT)
            assert float(row["regret"]["data-ci"]) == pytest.approx(mine["regret_ci"], abs=EXACT)
            assert _value(row["desire ToM %"]) == pytest.approx(mine["desire_accuracy"], abs=EXACT)
    # the exact references, marked, once per family: as stored, and as the command printed
    refs = [r for r in rows if r["ref"]]
    (command,) = [r for r in printed if r["policy"] == "bayes"]
    for family in ("charity", "health"):
        (stored,) = {
            json.dumps(r["references"], sort_keys=True)
            for path in files
            for r in _records(path)
            if r["family"] == family
        }  # every persuader's records hold the same exact references
        stored = json.loads(stored)
        mine = {r["persuader"]["text"]: r for r in refs if r["family"]["text"] == family}
        assert set(mine) == {"exact: best open-loop", "exact: Bayes-optimal fair", "exact: oracle"}
        exact = command["by_family"][family]
        for name, k in (("best open-loop", "open_loop"), ("Bayes-optimal fair", "bayes"), ("oracle", "oracle")):
            assert _value(mine[f"exact: {name}"]["success %"]) == pytest.approx(100 * exact[k], abs=EXACT)
            assert _value(mine[f"exact: {name}"]["fair regret"]) == pytest.approx(exact["bayes"] - exact[k], abs=EXACT)
            assert stored[k] == exact[k]
    table = _table(page, "Live persuasion: references per scenario family")
    assert {r["family"]["text"] for r in table} == {"charity", "health"} and all(r["ref"] for r in table)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "Not drawn (no state predictions): llm (scripted)." in html  # the llm persuader predicts nothing


def test_scripted_qa_and_live_reruns_resume_and_change_nothing(built, tmp_path):
    root, _, _, data, runs = built
    res = tmp_path / "res"
    shutil.copytree(root / "res", res)
    before = {p: p.read_bytes() for p in res.rglob("*") if p.is_file() and not p.name.endswith(".lock")}
    for argv in SCRIPTED_QA_AND_LIVE:
        argv = [*argv, *(["--data-dir", str(data)] if argv[0] == "common-ground" else [])]
        again = _tom_envs(*argv, "--out", str(res), "--format", "json")
        assert again == runs[" ".join(argv)]  # the same rows, from the stored records
    after = {p: p.read_bytes() for p in res.rglob("*") if p.is_file() and not p.name.endswith(".lock")}
    assert after == before  # nothing recomputed, nothing appended (no new .runs line either)


def test_provenance_names_commands_models_and_data_checksums(built):
    root, out, _, data, _ = built
    html = (out / "index.html").read_text(encoding="utf-8")
    digest = hashlib.sha256()
    for f in sorted(p for p in data.rglob("*") if p.is_file()):
        digest.update(f.relative_to(data).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    assert f"sha256 {digest.hexdigest()}" in html  # the data folder the common-ground run read
    (path,) = (root / "res" / "persuasion").glob("qa_llm_*.jsonl")
    (run,) = _records(runs_path(path))
    assert run["command"][:2] == ["tom-envs", "persuasion"] and run["config"]["llm"]["model"] == "scripted"
    assert " ".join(run["command"]) in html
    commit = run["code"]["commit"]
    assert "models: scripted" in html and (f"commit {commit[:12]}" if commit else "not a git checkout") in html


# ---------------------------------------------------------------------- incremental, and safe while runs write
def test_regenerates_only_what_changed_and_never_touches_the_results(built, tmp_path):
    root, built_out, _, _, _ = built
    res, out = tmp_path / "res", tmp_path / "report"
    shutil.copytree(root / "res", res)  # copy2: the same names, sizes and modification times
    shutil.copytree(built_out, out)
    same = build_report(res, out)
    assert same["rebuilt"] == [] and len(same["reused"]) == 4  # nothing changed
    _tom_envs(
        "matrix",
        "--games",
        "RPS",
        "--partners",
        "tit_for_tat",
        "--policy",
        "tabular",
        "--episodes",
        "5",
        "--horizon",
        "10",
        "--out",
        str(res),
        "--format",
        "json",
    )  # one more episode in one file
    again = build_report(res, out)
    assert again["rebuilt"] == ["matrix"] and set(again["reused"]) == {"negotiation", "common_ground", "persuasion"}
    (row,) = [
        r
        for r in _table(_page(out), "Matrix games: regret")
        if r["policy"]["text"] == "tabular" and r["game"]["text"] == "RPS" and r["partners"]["text"] == "tit_for_tat"
    ]
    assert row["episodes"]["text"] == "5"

    # a run is writing: its lock is held and its last line is half written
    (path,) = [p for p in (res / "negotiation").glob("*.jsonl") if p.name.startswith("competing_social")]
    partial = path.read_bytes() + b'{"scenario": "hopkins_hmo", "seed": 9, "epi'
    path.write_bytes(partial)
    with locked(path):
        during = build_report(res, out)
        assert "negotiation" in during["rebuilt"]
        html = (out / "index.html").read_text(encoding="utf-8")
        assert "being written by process" in html and "1 line(s) skipped" in html
        assert build_report(res, out)["rebuilt"] == ["negotiation"]  # redone while the writer holds the lock
    assert path.read_bytes() == partial  # the report changed nothing
    rows = [
        r for r in _table(_page(out), "Negotiation: 002 Table 1") if not r["ref"] and r["mediator"]["text"] == "social"
    ]
    assert len(rows) == 1
    assert rows[0]["episodes"]["text"] == "2"  # only complete lines count
    assert {a: c for a, c in _agent_colours(out).items() if len(c) > 1} == {}  # reused figures kept one map


def test_a_missing_results_folder_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing"), "--out", str(tmp_path / "r")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_folder_without_results_is_a_named_error(tmp_path, capsys):
    from benchmarks.__main__ import main

    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "rep")]) == 2
    assert "holds no results files" in capsys.readouterr().err and not (tmp_path / "rep").exists()


# ---------------------------------------------------------------------- figures: colour = agent, small panels
def _audits(out: Path) -> dict[str, dict]:
    """Every figure's audit (what its drawn artists hold), by the figure's path; every figure has one."""
    from benchmarks.report.figures import audit_path

    pngs = sorted(out.rglob("*.png"))
    assert pngs
    return {p.relative_to(out).as_posix(): json.loads(audit_path(p).read_text(encoding="utf-8")) for p in pngs}


def _agent_colours(out: Path) -> dict[str, set[str]]:
    colours: dict[str, set[str]] = defaultdict(set)
    for audit in _audits(out).values():
        for panel in audit["panels"]:
            for s in panel["series"]:
                colours[s["agent"]].add(s["color"])
    return colours


def test_every_agent_has_one_colour_in_every_figure(built):
    from PIL import Image

    from benchmarks.report.figures import DISTINCT, colour_distance

    _, out, _, _, _ = built
    audits = _audits(out)
    colours = _agent_colours(out)
    assert {a: c for a, c in colours.items() if len(c) > 1} == {}
    figures_of = {
        a: {src for src, au in audits.items() if any(s["agent"] == a for p in au["panels"] for s in p["series"])}
        for a in colours
    }
    assert len(figures_of["random"]) >= 5  # matrix plane and curves, both QA stage figures, live plane, overview
    assert len(figures_of["tabular"]) >= 3
    for src, audit in audits.items():
        for panel in audit["panels"]:
            by_agent = {s["agent"]: s["color"] for s in panel["series"]}
            pairs = [(a, b) for a in by_agent for b in by_agent if a < b]
            close = [(a, b) for a, b in pairs if colour_distance(by_agent[a], by_agent[b]) < DISTINCT]
            assert close == [], f"{src}, {panel['title']!r}: agents drawn in close colours {close}"
        pixels = {c for _, c in Image.open(out / src).convert("RGB").getcolors(1 << 22)}
        for color in {s["color"] for p in audit["panels"] for s in p["series"]}:  # the PNG shows what the audit says
            rgb = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
            assert any(sum(abs(a - b) for a, b in zip(rgb, px)) <= 24 for px in pixels), f"{src}: no {color} pixel"
    sections = [json.loads((out / f / "section.json").read_text()) for f in ("matrix", "persuasion", "common_ground")]
    assert all(s["colours"][a] in colours[a] for s in sections for a in s["colours"])


def test_horizon_partner_and_mode_go_to_style_not_to_colour(built):
    _, out, _, _, _ = built
    audit = _audits(out)["matrix/plane.png"]
    tabular = [s for p in audit["panels"] for s in p["series"] if s["agent"] == "tabular"]
    assert {s["variant"] for s in tabular} == {"T=10, vs single_action", "T=10, vs tit_for_tat"}
    assert len({s["color"] for s in tabular}) == 1
    stages = _audits(out)["persuasion/stages.png"]
    assert len(stages["panels"]) >= 3 and all(len({s["agent"] for s in p["series"]}) == 1 for p in stages["panels"])


def test_no_panel_holds_more_than_eight_series_and_legends_are_smaller_than_the_plots(built):
    from benchmarks.report.figures import MAX_SERIES

    _, out, _, _, _ = built
    for src, audit in _audits(out).items():
        for panel in audit["panels"]:
            assert len({(s["agent"], s["variant"]) for s in panel["series"]}) <= MAX_SERIES, (src, panel["title"])
        (lw, lh), (aw, ah) = audit["legend_px"], audit["axes_px"]
        assert lh <= ah and lw * lh < aw * ah, f"{src}: legend {lw:.0f}x{lh:.0f} px, axes {aw:.0f}x{ah:.0f} px"


def test_intervals_stay_inside_the_bounds_and_the_axes(built):
    _, out, _, _, _ = built
    checked = 0
    for src, audit in _audits(out).items():
        for panel in audit["panels"]:
            for axis in ("x", "y"):
                extent, bounds, lim = panel["intervals"][axis], panel["bounds"][axis], panel[f"{axis}lim"]
                if extent is None:
                    continue
                assert lim[0] <= extent[0] and extent[1] <= lim[1], (src, panel["title"], axis, extent, lim)
                if bounds is not None:
                    checked += 1
                    assert bounds[0] - 1e-9 <= extent[0] and extent[1] <= bounds[1] + 1e-9, (src, panel["title"], axis)
    assert checked >= 10


def _point_plane(tmp_path: Path, **lims) -> dict:
    from benchmarks.report import figures

    panel = {
        "title": "p",
        "points": [
            {"agent": "a", "x": 95.0, "xci": 20.0, "y": 50.0, "yci": 80.0},
            {"agent": "b", "x": 10.0, "xci": 1.0, "y": 5.0, "yci": 1.0},
        ],
        **lims,
    }
    figures.plane(tmp_path / "plane.png", "t", [panel])
    return json.loads(figures.audit_path(tmp_path / "plane.png").read_text())["panels"][0]


def test_whiskers_are_cut_at_the_bounds_of_their_quantity(tmp_path):
    cut = _point_plane(tmp_path / "cut", xlim=(0, 100), ylim=(0, 100))
    assert cut["intervals"] == {"x": [9.0, 100.0], "y": [0.0, 100.0]}  # 95 ± 20 and 50 ± 80 stop at 100 and 0
    free = _point_plane(tmp_path / "free")  # no bounds: the audit reads the whiskers as drawn
    assert free["intervals"] == {"x": [9.0, 115.0], "y": [-30.0, 130.0]}


def test_colours_follow_the_agent_and_agents_drawn_together_never_share_one(tmp_path):
    from benchmarks.report import figures

    colours = figures.assign_colours([["a", "b", "c"], ["c", "d"]])
    assert len(set(colours.values())) == 4 and figures.assign_colours([["c", "d"], ["a", "b", "c"]]) == colours
    many = figures.assign_colours([[f"agent {i}" for i in range(len(figures.PALETTE))]])
    assert len(set(many.values())) == len(figures.PALETTE)
    series = [{"agent": "a", "variant": f"T={t}", **figures.band([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]])} for t in (10, 20)]
    with figures.planned() as jobs:
        figures.curves(tmp_path / "c.png", "t", [{"title": "p", "series": series}])
    assert not (tmp_path / "c.png").exists() and jobs[0].agents == ["a"]  # planned, drawn with the report's map
    figures.draw_all(jobs, {"a": "#123456"})
    (panel,) = json.loads(figures.audit_path(tmp_path / "c.png").read_text())["panels"]
    assert [s["color"] for s in panel["series"]] == ["#123456", "#123456"]


def test_a_full_panel_is_split_and_a_series_without_an_agent_is_a_named_error(tmp_path):
    from benchmarks.report import figures

    b = figures.band([[1.0, 2.0], [2.0, 3.0]])
    panel = {"title": "p", "series": [{"agent": f"agent {i}", **b} for i in range(12)]}
    assert [len(p["series"]) for p in figures.split_panels([panel], "series")] == [6, 6]
    by_variant = {"title": "p", "series": [{"agent": f"agent {i}", "variant": f"v{i % 2}", **b} for i in range(12)]}
    assert [p["title"] for p in figures.split_panels([by_variant], "series")] == ["p, v0", "p, v1"]
    with pytest.raises(figures.FigureError, match="without an 'agent'"):
        figures.curves(tmp_path / "x.png", "t", [{"title": "p", "series": [{"label": "old", **b}]}])
    twins = figures.split_panels([{"title": "p", "series": [{"agent": "a", **b}, {"agent": "a", **b}]}], "series")
    assert [s["variant"] for s in twins[0]["series"]] == ["run 1", "run 2"]  # told apart, not drawn on each other


def test_runs_of_one_agent_are_told_apart_by_the_settings_they_differ_in():
    from benchmarks.report.sections import run_variants

    runs = [
        ("a", {"split": "test", "seed": 0, "data_dir": None}, "f1"),
        ("a", {"split": "test", "seed": 0, "data_dir": "data@12ab"}, "f2"),
        ("b", {"split": "dev"}, "f3"),
        ("c", None, "f4"),
        ("c", None, "f5"),
    ]
    assert run_variants(runs) == ["data_dir=none", "data_dir=data@12ab", "", "file f4", "file f5"]


# ---------------------------------------------------------------------- in a browser
#: A script run by the browser after the page's load: each image's load state and its size on screen.
_IMAGE_PROBE = """<script>
window.addEventListener('load', () => {
  const out = [...document.images].map(img => { const r = img.getBoundingClientRect();
    return {src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0,
            natural: [img.naturalWidth, img.naturalHeight], shown: [r.width, r.height]}; });
  const pre = document.createElement('pre'); pre.id = 'image-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""
#: The window the page is read in, and the least an image may be shrunk to in it: at 100 dpi the figures'
#: 8-point legends are 11 pixels high, 8 pixels at this scale.
WINDOW, LEAST_SCALE = (1280, 1600), 0.75


def _browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip(
            "no chromium on this machine (Debian package `chromium`: `make install` installs it where it "
            "runs as root with apt)"
        )
    return found


def _in_browser(
    page_dir: Path, tmp: Path, probe: str, probe_id: str, window: tuple[int, int] = WINDOW, extra: str = ""
) -> Any:
    """Open a copy of the report (``extra`` added at the end of its body) in headless Chromium; what the
    ``probe`` script wrote into ``<pre id=probe_id>`` after the page loaded."""
    import html
    import re
    import subprocess

    copy = tmp / "page"
    shutil.copytree(page_dir, copy)
    index = copy / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("</body>", extra + probe + "</body>"), encoding="utf-8")
    cmd = [
        _browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp / 'profile'}",
        f"--window-size={window[0]},{window[1]}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        index.as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout
    found = re.search(rf'<pre id="{probe_id}">(.*?)</pre>', dom, re.S)
    assert found is not None, f"the page's load event never ran in {cmd[0]}: {dom[:300]!r}"
    return json.loads(html.unescape(found.group(1)))


def _images_in_browser(page_dir: Path, tmp: Path) -> list[dict]:
    return _in_browser(page_dir, tmp, _IMAGE_PROBE, "image-probe")


#: A script run after the page's load: how wide the page is against the window, and each table (or code
#: block) wider than the box it sits in.
_WIDTH_PROBE = """<script>
window.addEventListener('load', () => {
  const view = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('div.scroll, pre')].filter(b => b.scrollWidth > b.clientWidth + 1
      || b.getBoundingClientRect().right > view + 1).map(b => ({what: b.tagName === 'PRE' ? 'code' :
      (b.querySelector('caption') || {textContent: '?'}).textContent, scroll: b.scrollWidth, box: b.clientWidth}));
  const pre = document.createElement('pre'); pre.id = 'width-probe';
  pre.textContent = JSON.stringify({page: document.documentElement.scrollWidth, view: view, wide: wide});
  document.body.appendChild(pre);
});
</script>"""
#: The window the tables must fit without scrolling sideways.
TABLE_WINDOW = (1400, 1200)


def test_in_a_browser_no_table_scrolls_sideways_in_a_1400_pixel_window(built, tmp_path):
    _, out, _, _, _ = built
    seen = _in_browser(out, tmp_path, _WIDTH_PROBE, "width-probe", TABLE_WINDOW)
    assert seen["wide"] == [] and seen["page"] <= seen["view"], seen


def test_the_width_check_finds_a_table_too_wide(built, tmp_path):
    """The check can fail: a table of forty unbreakable headers is added to a copy of the page."""
    _, out, _, _, _ = built
    wide = (
        '<div class="scroll"><table><caption>too wide</caption><thead><tr>'
        + "".join(f'<th style="overflow-wrap: normal">header_{i}_without_spaces</th>' for i in range(40))
        + "</tr></thead></table></div>"
    )
    seen = _in_browser(out, tmp_path, _WIDTH_PROBE, "width-probe", TABLE_WINDOW, extra=wide)
    assert [w["what"] for w in seen["wide"]] == ["too wide"]


def test_in_a_browser_every_figure_loads_and_is_shown_at_a_readable_size(built, tmp_path):
    _, out, _, _, _ = built
    images = _images_in_browser(out, tmp_path)
    assert sorted(i["src"] for i in images) == sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    broken = [i["src"] for i in images if not i["loaded"]]
    assert broken == [], f"broken images: {broken}"
    shrunk = {
        i["src"]: round(i["shown"][0] / i["natural"][0], 2)
        for i in images
        if i["shown"][0] < LEAST_SCALE * i["natural"][0]
    }
    assert shrunk == {}, f"figures shown too small to read in a {WINDOW[0]}-pixel window (scale): {shrunk}"


def test_the_browser_check_finds_a_broken_and_a_shrunk_figure(built, tmp_path):
    """The check can fail: one figure deleted, one replaced by a far wider image."""
    _, out, _, _, _ = built
    page = tmp_path / "report"
    shutil.copytree(out, page)
    pngs = sorted(page.rglob("*.png"))
    pngs[0].unlink()
    from PIL import Image

    Image.new("RGB", (4000, 300), "white").save(pngs[1])
    images = {i["src"]: i for i in _images_in_browser(page, tmp_path / "b")}
    assert not images[pngs[0].relative_to(page).as_posix()]["loaded"]
    wide = images[pngs[1].relative_to(page).as_posix()]
    assert wide["loaded"] and wide["shown"][0] < LEAST_SCALE * wide["natural"][0]


def test_intervals_are_shown_only_for_three_values_or_more():
    from benchmarks.report.doc import estimate, num

    assert num(*estimate([0.5]), digits=2)["text"] == "0.50 (n = 1)"
    two = estimate([45.0, 47.0])
    assert two[1] is None and num(*two, digits=2) == {"text": "46.00 (n = 2)", "value": 46.0, "ci": None}
    three = estimate([1.0, 2.0, 3.0])
    assert three[2] == 3 and num(*three, digits=1)["text"] == f"2.0 ± {three[1]:.1f}" and three[1] > 0
    assert estimate([None, 1.0]) == (1.0, None, 1) and num(*estimate([])) == "n/a"
