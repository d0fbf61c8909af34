"""The report's content as plain data (blocks), rendered to one HTML page and one Markdown file.

A block is a JSON-able dict, so a family's section can be cached between runs (incremental
regeneration) and the HTML and the Markdown always say the same thing:

* ``{"kind": "h2" | "h3", "text": ..., "id": ...}``
* ``{"kind": "p", "text": ...}`` and ``{"kind": "ul", "items": [...]}``
* ``{"kind": "code", "text": ...}`` (command lines)
* ``{"kind": "table", "caption": ..., "columns": [...], "rows": [{"cells": [...], "ref": bool}]}``: a
  cell is text, or ``{"text", "value", "ci"}`` for a number (the HTML keeps the unrounded mean and
  CI half-width in ``data-value`` / ``data-ci``); ``ref`` rows are published reference rows.
* ``{"kind": "figure", "src": "family/file.png", "caption": ...}`` (relative to the page).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tom_envs.stats import mean_ci95

Block = dict[str, Any]

#: The page fits a 1,400-pixel window without scrolling sideways (the report's browser test): text cells wrap at
#: spaces (long settings anywhere), headers anywhere where a table is short of room, and a number keeps its
#: mean and its "± CI" each on one line. Command lines and transcripts wrap too.
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1340px;
       padding: 1em 1.5em; color: #1b1b1b; line-height: 1.45; }
h1 { border-bottom: 2px solid #333; padding-bottom: .2em; }
h2 { margin-top: 2.2em; border-bottom: 1px solid #bbb; }
nav ul { columns: 2; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 0.84em; max-width: 100%; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: .3em 0; }
th, td { border: 1px solid #ccc; padding: .2em .4em; text-align: right; vertical-align: top;
         overflow-wrap: break-word; }
th { background: #f0f0f0; font-weight: 600; font-size: 0.92em; overflow-wrap: anywhere; }
td:first-child, th:first-child { text-align: left; }
tr.ref td { background: #fff8e1; font-style: italic; }
td.long { text-align: left; min-width: 12em; overflow-wrap: anywhere; }
span.n { white-space: nowrap; }
div.scroll { overflow-x: auto; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: 0.85em; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.note { color: #555; }
"""


def inline_css(css: str = CSS) -> str:
    """The stylesheet as the page carries it: one line, each run of whitespace one space (the same rules; the
    page is an output, so it holds the compact form and :data:`CSS` stays the one readable copy)."""
    return " ".join(css.split())


def figure_blocks(heading: str, src: str, caption: str) -> list[Block]:
    """A figure of a family's section under its own heading: the ``h3`` and the ``figure`` with its caption."""
    return [{"kind": "h3", "text": heading}, {"kind": "figure", "src": src, "caption": caption}]


def cell_text(cell: Any) -> str:
    return cell["text"] if isinstance(cell, dict) else ("" if cell is None else str(cell))


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as Markdown (pipe tables, images by relative path)."""
    out = [f"# {title}", ""]
    for b in blocks:
        kind = b["kind"]
        if kind in ("h2", "h3"):
            out += [("## " if kind == "h2" else "### ") + b["text"], ""]
        elif kind == "p":
            out += [b["text"], ""]
        elif kind == "ul":
            out += [f"* {item}" for item in b["items"]] + [""]
        elif kind == "code":
            out += ["```", b["text"], "```", ""]
        elif kind == "table":
            if b.get("caption"):
                out += [f"**{b['caption']}**", ""]
            cols = b["columns"]
            out.append("| " + " | ".join(_md_escape(c) for c in cols) + " |")
            out.append("|" + "|".join(["---"] * len(cols)) + "|")
            for row in b["rows"]:
                cells = [_md_escape(cell_text(c)) for c in row["cells"]]
                if row.get("ref"):
                    cells = [f"*{c}*" if c else c for c in cells]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        elif kind == "figure":
            out += [f"![{b['caption']}]({b['src']})", "", f"*{b['caption']}*", ""]
    return "\n".join(out).rstrip() + "\n"


def _html_cell(cell: Any, tag: str = "td") -> str:
    if isinstance(cell, dict) and "value" in cell:
        attrs = f' data-value="{cell["value"]!r}"'
        if cell.get("ci") is not None:
            attrs += f' data-ci="{cell["ci"]!r}"'
        mean, sep, rest = cell["text"].partition(" ")  # "0.123 ± 0.045": may wrap before the "±", nowhere else
        text = f'<span class="n">{html.escape(mean)}</span>' + (
            f' <span class="n">{html.escape(rest)}</span>' if sep else ""
        )
        return f"<{tag}{attrs}>{text}</{tag}>"
    text = cell_text(cell)
    cls = ' class="long"' if len(text) > 40 else ""  # settings and descriptions wrap anywhere
    return f"<{tag}{cls}>{html.escape(text)}</{tag}>"


def to_html(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as one static page (inline CSS, no scripts; figures as files next to it)."""
    esc = html.escape
    toc = [b for b in blocks if b["kind"] == "h2"]
    body = [f"<h1>{esc(title)}</h1>"]
    if toc:
        body.append(
            "<nav><ul>"
            + "".join(f'<li><a href="#{esc(b["id"])}">{esc(b["text"])}</a></li>' for b in toc)
            + "</ul></nav>"
        )
    for b in blocks:
        kind = b["kind"]
        if kind in ("h2", "h3"):
            ident = f' id="{esc(b["id"])}"' if b.get("id") else ""
            body.append(f"<{kind}{ident}>{esc(b['text'])}</{kind}>")
        elif kind == "p":
            body.append(f"<p>{esc(b['text'])}</p>")
        elif kind == "ul":
            body.append("<ul>" + "".join(f"<li>{esc(item)}</li>" for item in b["items"]) + "</ul>")
        elif kind == "code":
            body.append(f"<pre><code>{esc(b['text'])}</code></pre>")
        elif kind == "table":
            parts = ['<div class="scroll"><table>']
            if b.get("caption"):
                parts.append(f"<caption>{esc(b['caption'])}</caption>")
            parts.append("<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in b["columns"]) + "</tr></thead><tbody>")
            for row in b["rows"]:
                cls = ' class="ref"' if row.get("ref") else ""
                parts.append(f"<tr{cls}>" + "".join(_html_cell(c) for c in row["cells"]) + "</tr>")
            parts.append("</tbody></table></div>")
            body.append("".join(parts))
        elif kind == "figure":
            body.append(
                f'<figure><img src="{esc(b["src"])}" alt="{esc(b["caption"])}">'
                f"<figcaption>{esc(b['caption'])}</figcaption></figure>"
            )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{esc(title)}</title>\n'
        f"<style>{inline_css()}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


#: The fewest values a 95 % interval is shown for: with fewer, cells say ``(n = 1)`` / ``(n = 2)`` instead (a
#: Student-t interval of two values spans about six standard errors either side; of one, nothing).
MIN_CI_N = 3


def estimate(values: Sequence[float | None]) -> tuple[float | None, float | None, int]:
    """``(mean, 95 % half-width, n)`` over the values that are not None; the half-width is None for fewer
    than :data:`MIN_CI_N` values (figures then draw no whisker, :func:`num` says ``n``)."""
    xs = [float(v) for v in values if v is not None]
    mean, ci = mean_ci95(xs)
    return mean, (ci if len(xs) >= MIN_CI_N else None), len(xs)


def num(
    value: float | None, ci: float | None = None, n: int | None = None, *, digits: int = 3, scale: float = 1.0
) -> Any:
    """A number cell: ``mean ± ci`` rounded to ``digits`` (``n/a`` for None), exact values kept; with ``n``
    below :data:`MIN_CI_N` no interval but ``mean (n = 1)``."""
    if value is None:
        return "n/a"
    v = value * scale
    few = n is not None and n < MIN_CI_N
    c = None if ci is None or few else ci * scale
    text = f"{v:.{digits}f}" + (f" (n = {n})" if few else "" if c is None else f" ± {c:.{digits}f}")
    return {"text": text, "value": v, "ci": c}
