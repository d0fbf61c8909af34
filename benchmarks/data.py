"""``python -m benchmarks data ...``: the datasets behind the envs, and fetching them.

::

    python -m benchmarks data list [--format json]
    python -m benchmarks data download persuasion [--dest data/persuasive-tom] [--base-url URL] ...
    python -m benchmarks data download common-ground [--dest data/common-tom] [--conversations ...] ...

(``tom-envs data ...`` once the package is installed.) Real datasets are not bundled: ``download``
fetches the published files (needs internet), validates every file with the family's loader
before it is moved into place, and reports a broken download naming the file. Every family also
ships a small sample of ours in exactly the published format, used when no ``--data-dir`` is
given. ProMediate-Eval cases have no public download; bring your own files
(``Scenario.from_promediate``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Dataset:
    """One published dataset: where it comes from, its format, and which ids read it."""

    name: str
    paper: str
    envs: tuple[str, ...]
    source: str
    layout: str
    sample: str
    use: str
    download: str | None  # module with add_arguments/run, or None when there is no public download


def _datasets() -> list[Dataset]:
    from tom_envs.common_ground import SAMPLE_DATA_DIR as CG_SAMPLE
    from tom_envs.common_ground.download import REPOSITORY as CG_REPOSITORY
    from tom_envs.persuasion import SAMPLE_DATA_DIR as P_SAMPLE
    from tom_envs.persuasion.download import DEFAULT_BASE_URL as P_URL

    return [
        Dataset("persuasion", "001 PersuasiveToM", ("tom/PersuasiveToM-v0",), P_URL,
                "<qtype>.json for the eight question types", str(P_SAMPLE),
                "tom_envs.make('tom/PersuasiveToM-v0', data_dir=DIR); python -m benchmarks persuasion --data-dir DIR",
                "tom_envs.persuasion.download"),
        Dataset("common-ground", "003 Common-ToM", ("tom/CommonToM-v0",), f"https://github.com/{CG_REPOSITORY}",
                "cg/*.tsv (annotated corpus) and questions/*_yn_questions.csv.gz", str(CG_SAMPLE),
                "tom_envs.make('tom/CommonToM-v0', data_dir=DIR); python -m benchmarks common-ground --data-dir DIR",
                "tom_envs.common_ground.download"),
        Dataset("negotiation", "002 ProMediate", ("tom/Negotiation-v0",), "ProMediate-Eval case files (no public download)",
                "one JSON case per file (instruction, issues, options, config, names[, topics])",
                "six built-in scenarios of ours (tom_envs/negotiation/scenarios)",
                "Scenario.from_promediate(PATH) or Scenario.from_file(PATH); NegotiationEnv(scenario=...)", None),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``list`` and ``download NAME`` under ``parser``."""
    import importlib

    sub = parser.add_subparsers(dest="data_command", required=True)
    lst = sub.add_parser("list", help="the datasets, their formats and the ids that read them")
    lst.add_argument("--format", choices=["table", "json"], default="table")
    lst.set_defaults(func=_list)
    dl = sub.add_parser("download", help="fetch a published dataset into a folder (needs internet)")
    names = dl.add_subparsers(dest="dataset", required=True, metavar="NAME")
    for ds in _datasets():
        if ds.download is None:
            continue
        module = importlib.import_module(ds.download)
        p = names.add_parser(ds.name, help=f"{ds.paper}: {ds.layout}")
        module.add_arguments(p)
        p.set_defaults(func=module.run)


def _list(args: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = [asdict(d) for d in _datasets()]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        how = f"python -m benchmarks data download {r['name']}" if r["download"] else "no public download"
        print(f"{r['name']} ({r['paper']}; {', '.join(r['envs'])})\n  source: {r['source']}\n  files:  {r['layout']}\n"
              f"  sample: {r['sample']}\n  use:    {r['use']}\n  fetch:  {how}\n", file=sys.stdout)
    return 0
