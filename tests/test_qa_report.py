"""The report's QA sections (issue 29): the persuasion consistency table names each run's protocol, 001's
Table 6 rows are all shown, and the Common-ToM table has an F1 column and names the question-only floor."""

from __future__ import annotations

import contextlib
import io
import re

from benchmarks.__main__ import main
from benchmarks.persuasion.published import PUBLISHED_CONSISTENCY
from benchmarks.report import build_report


def _run(*argv: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(list(argv)) == 0


def test_the_report_names_protocols_table_6_and_the_floor(tmp_path):
    res, out = tmp_path / "res", tmp_path / "report"
    for protocol in ("ours", "authors"):
        _run(
            "persuasion",
            "--policy",
            "always-first",
            "--repetitions",
            "1",
            "--protocol",
            protocol,
            "--qtypes",
            "desire_ee,intent_ee",
            "--out",
            str(res),
            "--format",
            "json",
        )
    _run("common-ground", "--policy", "question-only", "--out", str(res), "--format", "json")
    build_report(res, out)
    html = (out / "index.html").read_text(encoding="utf-8")
    counts = html[html.index("PersuasiveToM: counts, chance and consistency") :]
    counts = counts[: counts.index("</table>")]
    assert "<th>protocol</th>" in counts
    assert re.search(r"always-first.*?</td>\s*<td[^>]*>ours</td>", counts, flags=re.S)
    assert re.search(r"always-first.*?</td>\s*<td[^>]*>authors</td>", counts, flags=re.S)
    table6 = html[html.index("001 Table 6 (published)") :]
    table6 = table6[: table6.index("</table>")]
    assert all(f"001 {name} (published)" in table6 for name in PUBLISHED_CONSISTENCY)
    common = html[html.index("Common-ToM: accuracy by belief order") :]
    common = common[: common.index("</table>")]
    assert "F1 macro %" in common and "question-only" in common
