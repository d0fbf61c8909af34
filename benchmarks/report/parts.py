"""The pieces every report section is built with (:mod:`benchmarks.report.sections` re-exports them): the section
dict itself (:func:`section_of`) and the blocks of a figure just drawn, its file recorded as the page links it.
Nothing here imports a section module, so any of them may import these."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.report.doc import Block, figure_blocks
from benchmarks.report.load import FamilyData

Section = dict[str, Any]


def section_of(
    fam: FamilyData, title: str, blocks: list[Block], panels: list[dict[str, Any]], figures: list[str]
) -> Section:
    """A family's section (the shape the module docstring describes): its blocks, its literal-vs-functional panels
    for the overview and the figure files it drew (relative to the page)."""
    return {"family": fam.folder, "title": title, "blocks": blocks, "panels": panels, "figures": figures}


def write(path: Path, written: list[str], root: Path) -> str:
    written.append(path.relative_to(root).as_posix())
    return written[-1]


def figure_section(heading: str, caption: str, written: list[str], root: Path, path: Path) -> list[Block]:
    """The blocks of a figure just drawn at ``path``: its own heading and the figure with its caption; the file is
    recorded in ``written`` (relative to ``root``, as the page links it)."""
    return figure_blocks(heading, write(path, written, root), caption)


def figure_block(path: Path, caption: str, written: list[str], root: Path) -> Block:
    """The block of a figure just drawn at ``path`` with its caption, under no heading of its own; the file is
    recorded in ``written`` (relative to ``root``, as the page links it)."""
    return {"kind": "figure", "src": write(path, written, root), "caption": caption}


def drawn_figure(
    draw: Callable[..., Path],
    path: Path,
    title: str,
    panels: list[dict[str, Any]],
    variant_title: str,
    caption: str,
    written: list[str],
    root: Path,
) -> list[Block]:
    """The figure ``draw`` (:func:`benchmarks.report.figures.plane` or :func:`~benchmarks.report.figures.curves`)
    draws of ``panels`` at ``path``, as a block with its caption under no heading of its own (:func:`figure_block`);
    no blocks, and nothing drawn, without panels."""
    if not panels:
        return []
    return [figure_block(draw(path, title, panels, variant_title=variant_title), caption, written, root)]


def plane_section(
    title: str,
    caption: str,
    panels: list[dict[str, Any]],
    variant_title: str,
    written: list[str],
    out: Path,
    root: Path,
) -> list[Block]:
    """A family's literal-vs-functional figure (``out/plane.png``, :func:`benchmarks.report.figures.plane`, titled
    ``title``) under the heading "Literal vs functional ToM"; no blocks without panels."""
    from benchmarks.report import figures

    if not panels:
        return []
    path = figures.plane(out / "plane.png", title, panels, variant_title=variant_title)
    return figure_section("Literal vs functional ToM", caption, written, root, path)
