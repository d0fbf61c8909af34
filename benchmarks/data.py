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
    download: str | None  # the module that knows its files (tom_envs.download.DOWNLOADS), or None
    notes: tuple[str, ...] = ()  # what a user should know about the release: what exists, known quirks


def reader_ids(entry_point: str) -> tuple[str, ...]:
    """The registered ids whose env class (``"module:Class"``) reads a dataset."""
    from tom_envs.registration import REGISTRY

    return tuple(rec.id for rec in REGISTRY.values() if rec.entry_point == entry_point)


def newest_id(entry_point: str) -> str:
    """The registered id of the env class ``entry_point`` with the highest version suffix."""
    from tom_envs.errors import UnknownEnvironment

    found = reader_ids(entry_point)
    if not found:
        raise UnknownEnvironment(f"no registered id makes {entry_point}; is tom_envs imported?")
    return max(found, key=_version)


def _version(env_id: str) -> int:
    tail = env_id.rsplit("-v", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _datasets() -> list[Dataset]:
    from tom_envs.common_ground import SAMPLE_DATA_DIR as CG_SAMPLE
    from tom_envs.common_ground.download import REPOSITORY as CG_REPOSITORY
    from tom_envs.download import DOWNLOADS
    from tom_envs.negotiation.download import REPOSITORY as NEG_REPOSITORY
    from tom_envs.persuasion import SAMPLE_DATA_DIR as P_SAMPLE
    from tom_envs.persuasion.download import DEFAULT_BASE_URL as P_URL

    from tom_envs.persuasion.data import RELEASE_QUIRKS, RELEASE_UNVERIFIED, RELEASE_VERIFIED

    p_ids = reader_ids("tom_envs.persuasion.qa_env:PersuasiveToMEnv")
    p_notes = (f"verified in the release: {', '.join(RELEASE_VERIFIED)} (they load exactly: 2,459 / 2,041 / 2,041 / "
               "2,041 questions, 001's Table 4)",
               f"listed in the release's tree but not verified here: {', '.join(RELEASE_UNVERIFIED)} "
               "(their contents were not in the copy we read; "
               "the download tries them and reports any it cannot get; our sample's files for them assume the "
               "verified files' format)",
               *(f"quirk, {q}: {text}" for q, text in RELEASE_QUIRKS.items()),
               "the authors' prompts: the download also fetches the release's evaluation/evaluate.py into "
               "DIR/evaluation/ (read as text by --protocol authors, never run; without it our prompts are used, "
               "prompt_source 'ours')")
    cg_ids = reader_ids("tom_envs.common_ground.env:CommonToMEnv")
    neg_ids = reader_ids("tom_envs.negotiation.env:NegotiationEnv")
    return [
        Dataset("persuasion", "001 PersuasiveToM", p_ids, P_URL,
                "<qtype>.json per question type (8 in Table 5; 4 verified in the release, see notes)", str(P_SAMPLE),
                f"tom_envs.make('{p_ids[0]}', data_dir=DIR); python -m benchmarks persuasion --data-dir DIR",
                DOWNLOADS.get("persuasion"), p_notes),
        Dataset("common-ground", "003 Common-ToM", cg_ids, f"https://github.com/{CG_REPOSITORY}",
                "cg/*.tsv (annotated corpus) and questions/*_yn_questions.csv.gz", str(CG_SAMPLE),
                f"tom_envs.make('{cg_ids[0]}', data_dir=DIR); python -m benchmarks common-ground --data-dir DIR",
                DOWNLOADS.get("common-ground")),
        Dataset("negotiation", "002 ProMediate", neg_ids, f"https://github.com/{NEG_REPOSITORY}",
                "cases/<case>.json for the six cases (instruction, issues, options, config, names[, topics])",
                "six self-written scenarios of ours for CI (tom_envs/negotiation/scenarios); the downloaded "
                "cases replace them in --scenarios all",
                f"tom_envs.make_aec('{neg_ids[0]}', scenario=Scenario.from_file(PATH)); "
                "python -m benchmarks negotiation --scenarios all (or PATH,...)",
                DOWNLOADS.get("negotiation")),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``list`` and ``download NAME`` under ``parser``."""
    from tom_envs.download import add_commands

    sub = parser.add_subparsers(dest="data_command", required=True)
    lst = sub.add_parser("list", help="the datasets, their formats and the ids that read them")
    lst.add_argument("--format", choices=["table", "json"], default="table",
                     help="output format (default: %(default)s)")
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
        print(f"{r['name']} ({r['paper']}; {', '.join(r['envs'])})\n  source: {r['source']}\n  files:  {r['layout']}\n"
              f"  sample: {r['sample']}\n  use:    {r['use']}\n  fetch:  {how}"
              + "".join(f"\n  note:   {n}" for n in r["notes"]) + "\n", file=sys.stdout)
    return 0
