"""The matrix family's commands beside ``tom-envs matrix``: ``demo`` (the main job) and ``perf``
(speed benchmarks). RL training is the shared ``tom-envs rl --env ID`` (:mod:`benchmarks.rl`).

They are declared in :data:`tom_envs.matrix.family.FAMILY` (``commands``) and built by the shared
CLI like any family's commands (:class:`benchmarks.cli.Command`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.cli import (
    Command,
    OneSpelling,
    add_format_option,
    add_llm_options,
    add_run_options,
    build_backend,
    comma_list,
    positive_float,
    positive_int,
    split_list,
)


def _run_demo(args: argparse.Namespace) -> int:
    from benchmarks.matrix.demo import main as demo

    return demo(Path(args.out), args.episodes, args.seed, progress=sys.stderr.isatty())


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_options(parser, episodes=30, seed_help="episode i uses seed + i", output_format=False)


DEMO = Command("demo", "the main job: reproduce seed 004's Tabular rows (Table 4)", _demo_arguments, _run_demo)


def _run_perf(args: argparse.Namespace) -> int:
    from benchmarks.matrix.perf import format_rl, format_table, perf_matrix, perf_rl

    progress = False if args.format == "json" else None  # None: a bar on a terminal
    if args.suite == "rl":
        res = perf_rl(steps=args.steps, progress=progress, seconds=args.seconds)
        text = format_rl(res)
    elif args.suite == "llm":
        from benchmarks.matrix.perf_llm import perf_llm

        backend = build_backend(args.backend, args.model, args.base_url, 0, args.tokenizer, args.max_model_len)
        try:
            res = perf_llm(backend, episodes=args.episodes, horizon=args.horizon)
        finally:
            backend.close()
        text = "\n".join(flat_lines(res))
    else:
        res = perf_matrix(seconds=args.seconds, progress=progress)
        text = format_table(res)
    print(json.dumps(res, indent=2) if args.format == "json" else text)
    return 0


def flat_lines(res: dict, prefix: str = "") -> list[str]:
    """``key: value`` lines of a nested result (``scoring_paths.next-token.prefix_cache_share: 0.945``)."""
    lines = []
    for k, v in res.items():
        if isinstance(v, dict):
            lines += flat_lines(v, f"{prefix}{k}.")
        else:
            lines.append(f"{prefix}{k}: {v:,.3f}" if isinstance(v, float) else f"{prefix}{k}: {v}")
    return lines


def _perf_arguments(perf: argparse.ArgumentParser) -> None:
    perf.add_argument("suite", choices=["matrix", "rl", "llm"], help="what to time")
    perf.add_argument("--seconds", type=positive_float, default=0.5,
                      help="matrix: length of each timed run (best of 3); rl: of each env-stepping run")
    perf.add_argument("--steps", type=positive_int, default=8192,
                      help="rl: PPO training steps per measurement (one per RL task, the tasks of every family)")
    perf.add_argument("--episodes", type=positive_int, default=30, help="llm: episodes in lockstep")
    perf.add_argument("--horizon", type=positive_int, default=10, help="llm: rounds per episode of the speed run")
    add_format_option(perf)
    add_llm_options(perf, title="perf llm", only=("backend", "model", "base_url", "tokenizer", "max_model_len"),
                    max_model_len_help="vllm: context length; a 100-round history needs ~4,500")


PERF = Command("perf", "speed benchmarks (ratios against a reference measured in the same run)", _perf_arguments,
               _run_perf)
