"""Per-class figures of a v3 reader on labelled sets, and its speed (issue 39, docs/reader_v3.md).

    python -m benchmarks.persuasion.reader_v3_score                      # the learned reader on dev + retired set
    python -m benchmarks.persuasion.reader_v3_score --reader scripted FILE ...

For each file: reading accuracy, precision / recall / support per reading class, the hostile lines read as a pitch
or as stuffed (a hostile line that "lands"), concern accuracy, and reads per second (every line read once, after
one warm-up read). The figures on files the reader was trained on are development figures, not held-out ones.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from tom_envs.persuasion.reader_v3 import READING_CLASSES, load_labelled, score_reader
from tom_envs.persuasion.reader_v3_learned import READERS_V3, make_reader_v3

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "persuasion"
#: the development set and the retired (once frozen, now development) set
DEFAULT_FILES: tuple[Path, ...] = (DATA / "reader_v3_dev.jsonl", DATA / "reader_v3_frozen.jsonl")


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def figures(reader, path: str | Path) -> dict:
    """The figures of ``reader`` on the labelled set ``path`` (see the module docstring)."""
    items = load_labelled(path)
    reader.read("Experts recommend it.")
    start = time.perf_counter()
    score = score_reader(reader, items)
    seconds = time.perf_counter() - start
    hostile = [i for i in items if i.reading.label == "hostile"]
    landed = [i.text for i in hostile if reader.read(i.text).kind in ("pitch", "stuffed")]
    return {
        "file": Path(path).name,
        "n": score["n"],
        "reading_accuracy": round(score["reading_accuracy"], 4),
        "concern_accuracy": round(score["concern_accuracy"], 4),
        "per_class": {
            c: (_r(v["precision"]), _r(v["recall"]), v["support"])
            for c, v in score["reading"].items()
            if c in READING_CLASSES
        },
        "hostile_read_as_pitch": len(score["hostile_read_as_pitch"]),
        "hostile_landed": landed,
        "reads_per_s": round(len(items) / seconds, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Per-class figures of a v3 reader (issue 39).")
    parser.add_argument("files", nargs="*", default=[str(p) for p in DEFAULT_FILES])
    parser.add_argument("--reader", default="learned", choices=READERS_V3)
    args = parser.parse_args(argv)
    reader = make_reader_v3(args.reader)
    for path in args.files:
        print(json.dumps(figures(reader, path)))


if __name__ == "__main__":
    main()
