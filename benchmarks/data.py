"""``python -m benchmarks data ...``: the datasets behind the envs, and fetching them.

::

    python -m benchmarks data list [--format json]
    python -m benchmarks data download persuasion [--dest data/persuasive-tom] [--base-url URL] ...
    python -m benchmarks data download common-ground [--dest data/common-tom] [--conversations ...] ...

(``tom-envs data ...`` once the package is installed.) Real datasets are not bundled: ``download``
fetches the published files (needs internet), validates every file with the family's loader
before it is moved into place, and reports a broken download naming the file. Every family also
ships a small sample of ours in exactly the published format, used when no ``--data-dir`` is
given (the fetching itself is :mod:`tom_envs.download`). ProMediate-Eval cases have no public
download; bring your own files (``Scenario.from_promediate``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from tom_envs.download import Dataset
from tom_envs.family import families, load_object


def _datasets() -> list[Dataset]:
    """Every declared family's dataset (:class:`tom_envs.family.Family` ``dataset``), in family order."""
    return [load_object(fam.dataset)() for fam in families() if fam.dataset]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``list`` and ``download NAME`` under ``parser``."""
    from tom_envs.download import add_commands

    sub = parser.add_subparsers(dest="data_command", required=True)
    lst = sub.add_parser("list", help="the datasets, their formats and the ids that read them")
    lst.add_argument(
        "--format", choices=["table", "json"], default="table", help="output format (default: %(default)s)"
    )
    lst.set_defaults(func=_list)
    dl = sub.add_parser("download", help="fetch a published dataset into a folder (needs internet)")
    names = dl.add_subparsers(dest="dataset", required=True, metavar="NAME")
    add_commands(names, {d.name: f"{d.paper}: {d.layout}" for d in _datasets()})


def _list(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = [asdict(d) for d in _datasets()]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        how = f"python -m benchmarks data download {r['name']}" if r["download"] else "no public download"
        print(
            f"{r['name']} ({r['paper']}; {', '.join(r['envs'])})\n  source: {r['source']}\n  files:  {r['layout']}\n"
            f"  sample: {r['sample']}\n  use:    {r['use']}\n  fetch:  {how}"
            + "".join(f"\n  note:   {n}" for n in r["notes"])
            + "\n",
            file=sys.stdout,
        )
    return 0
