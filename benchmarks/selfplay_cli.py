"""``tom-envs selfplay``'s command line (:mod:`benchmarks.selfplay`; docs/selfplay.md): its options, and the
curve rows printed as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.selfplay import ALGOS, MODES, SelfplayRun, curve_rows, format_rows, pays


# ---------------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tom-envs selfplay``'s options."""
    from benchmarks.cli_training import add_output_options
    from benchmarks.cli_types import count, non_negative_int

    parser.add_argument(
        "--env", required=True, help="a two-seat id some family declares self-play on (a wrong one lists them)"
    )
    parser.add_argument("--algo", choices=list(ALGOS), default="ppo", help="the learners' algorithm (both seats)")
    parser.add_argument(
        "--mode",
        choices=list(MODES),
        default="selfplay",
        help="selfplay: each learner against the other's frozen snapshot of the previous round; "
        "population: each against the task's frozen population",
    )
    parser.add_argument("--rounds", type=count(1000), default=None, help="training rounds (default: the task's)")
    parser.add_argument(
        "--steps",
        type=count(100_000_000),
        default=None,
        help="training env steps per learner and round (default: the task's)",
    )
    parser.add_argument("--seeds", type=count(100), default=5, help="training seeds; curves carry CIs over them")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first training seed")
    parser.add_argument(
        "--episodes",
        type=count(100_000),
        default=None,
        help="evaluation episodes per checkpoint and seat (default: the task's)",
    )
    parser.add_argument(
        "--probe-episodes",
        type=count(100_000),
        default=None,
        help="the probe's fitting episodes per checkpoint and seat (default: the task's)",
    )
    add_output_options(parser, "snapshots and records")


def run_command(args: argparse.Namespace) -> int:
    """``tom-envs selfplay``: the curve rows as a table, or JSON with ``--format json``."""
    from benchmarks.cli_training import run_config
    from benchmarks.selfplay_train import run

    quiet = args.format == "json"
    config = run_config(SelfplayRun, args, env_id=args.env)
    records = run(config, Path(args.out), log=(lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr)))
    rows, paid = curve_rows(records), pays(records)
    print(json.dumps({"rows": rows, "pays": paid}, indent=2) if quiet else format_rows(rows, paid))
    return 0
