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
    EXECUTOR_FLAGS,
    Command,
    add_format_option,
    add_run_options,
    not_applicable,
    refuse_options,
)
from benchmarks.cli_backends import backend_spec, build_backend
from benchmarks.cli_llm import LLM_FLAGS, add_llm_options
from benchmarks.cli_types import non_negative_int, output_dir, positive_float, positive_int


#: The LLM options ``perf llm`` reads (the backend's; it re-asks nothing and steps its own lockstep).
PERF_LLM_OPTIONS = (
    "backend",
    "model",
    "base_url",
    "tokenizer",
    "max_model_len",
    "engine_arg",
    "timeout",
    "max_retries",
    "retry_budget",
    "scoring_path",
)


def _run_demo(args: argparse.Namespace) -> int:
    from benchmarks.matrix.demo import DemoOutput
    from benchmarks.matrix.demo import main as demo

    return demo(
        Path(args.out),
        args.episodes,
        args.seed,
        progress=args.format != "json" and sys.stderr.isatty(),
        output=DemoOutput(args.format, args.plot, real_model=not args.no_real_model),
    )


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_options(
        parser,
        episodes=30,
        seed_help="episode i uses seed + i",
        plot="write each cell's per-round regret and ToM figures into DIR",
    )
    parser.add_argument(
        "--no-real-model",
        action="store_true",
        help="leave out the real model's cell (smollm2-135m in vLLM: about a minute on 2 cores)",
    )
    fixed = (
        "the demo plays its fixed rows (tabular; oracle and random as sanity rows; the real model's cell) in "
        "this process: evaluate other policies, LLMs or grids with `tom-envs matrix`"
    )
    refuse_options(parser, {flag: fixed for flag in ("--policy", *LLM_FLAGS, *EXECUTOR_FLAGS)})


DEMO = Command("demo", "the main job: reproduce seed 004's Tabular rows (Table 4)", _demo_arguments, _run_demo)


def _reference_folder(args: argparse.Namespace, backend: object) -> str | None:
    """The model folder the transformers reference loads: the vllm backend's own (a known name's converted
    folder, or a local folder); None for a server (its weights are not here)."""
    import os

    folder = getattr(backend, "model", None) if args.backend == "vllm" else None
    return folder if folder and os.path.isfile(os.path.join(folder, "config.json")) else None


def _run_perf(args: argparse.Namespace) -> int:
    from benchmarks.matrix.perf import PerfRun, figure_log, format_rl, format_table, perf_matrix, perf_rl

    progress = False if args.format == "json" else None  # None: a bar on a terminal
    llm_only = ["episodes", "horizon", "cache_horizon", "reference_episodes", *PERF_LLM_OPTIONS]
    not_applicable(
        args,
        {"matrix": ["steps", *llm_only], "rl": llm_only, "llm": ["steps", "seconds"]}[args.suite],
        f"in `perf {args.suite}`",
    )
    emit = figure_log(args.out, args.suite, args.seed)
    run = PerfRun(args.seed, emit)
    if args.suite == "rl":
        res = perf_rl(steps=args.steps, progress=progress, seconds=args.seconds, run=run)
        text = format_rl(res)
    elif args.suite == "llm":
        from benchmarks.matrix.perf_llm import growth_rounds, perf_llm

        growth_rounds(args.cache_horizon)  # a size it cannot measure with fails before an engine starts
        backend = build_backend(*backend_spec(args, args.seed))  # --engine-arg / the server options too
        try:
            from benchmarks.matrix.perf_llm import LLMPerfOptions

            paths = (args.scoring_path,) if args.scoring_path != "auto" else None  # one path; auto: every one
            options = LLMPerfOptions(_reference_folder(args, backend), args.reference_episodes, paths)
            res = perf_llm(
                backend,
                episodes=args.episodes,
                horizon=args.horizon,
                cache_horizon=args.cache_horizon,
                run=run,
                options=options,
            )
        finally:
            backend.close()
        text = "\n".join(flat_lines(res))
    else:
        res = perf_matrix(seconds=args.seconds, progress=progress, run=run)
        text = format_table(res)
    emit("result", res)
    print(json.dumps(res, indent=2) if args.format == "json" else text)
    if args.out is not None and args.format != "json":
        print(f"figures: {emit.path}")  # type: ignore[attr-defined]
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


#: ``perf``'s own options: flag -> (type, default, help).
PERF_OPTIONS = {
    "--seconds": (
        positive_float,
        0.5,
        "matrix: length of each timed run (best of 3); rl: of each env-stepping run",
    ),
    "--steps": (
        positive_int,
        8192,
        "rl: PPO training steps per measurement (one per RL task, the tasks of every family)",
    ),
    "--episodes": (positive_int, 30, "llm: episodes in lockstep"),
    "--horizon": (positive_int, 10, "llm: rounds per episode of the speed run"),
    "--cache-horizon": (
        positive_int,
        100,
        "llm: rounds of the long episode (prefix cache, cost growth; 004's T = 100, at least 3; a few on a CPU)",
    ),
    "--reference-episodes": (
        positive_int,
        2,
        "llm: episodes the plain transformers loop plays (vllm on a local folder or known model)",
    ),
    "--seed": (
        non_negative_int,
        0,
        "seeds what perf randomises: env resets and the random actions of the stepping loops, "
        "PPO's seed (rl), the LLM episodes' seeds (llm)",
    ),
    "--out": (
        output_dir,
        None,
        "also append every figure the moment it is measured to DIR/perf/<suite>.jsonl (JSON lines, "
        "stamped with the code and the run; default: print only)",
    ),
}


def _perf_arguments(perf: argparse.ArgumentParser) -> None:
    perf.add_argument("suite", choices=["matrix", "rl", "llm"], help="what to time")
    for flag, (kind, default, text) in PERF_OPTIONS.items():
        perf.add_argument(flag, type=kind, default=default, help=text)
    add_format_option(perf)
    refuse_options(
        perf,
        {
            "--plot": "perf measures speed and draws nothing: its figures go to stdout and --out",
            "--policy": "perf times fixed workloads (see the suite's help)",
        },
    )
    add_llm_options(
        perf,
        title="perf llm",
        only=PERF_LLM_OPTIONS,
        max_model_len_help="vllm: context length; a 100-round history needs ~4,500",
    )
    refuse_options(
        perf,
        {
            "--lockstep": "perf llm steps all --episodes in lockstep, then one by one: the ratio it measures",
            "--fallback": "perf llm times fixed requests (its generation run re-asks nothing and falls back at random)",
            "--max-resamples": "perf llm times fixed requests (its generation run re-asks nothing and falls back at "
            "random)",
            **{flag: "perf times this process" for flag in EXECUTOR_FLAGS},
        },
    )


PERF = Command(
    "perf", "speed benchmarks (ratios against a reference measured in the same run)", _perf_arguments, _run_perf
)
