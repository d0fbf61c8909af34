"""``tom-envs demo`` (``make demo``, ``python -m benchmarks demo``): the project's main job.

Reproduces seed 004's Tabular rows (Table 4): the tabular RMax agent on the six cells RPS, IBS,
IPD x single-action, tit-for-tat partners, 30 episodes of T = 100 each, printed next to the
published values with the targets checked (regret/T <= 1.5 x published + 0.03 and
ToM % >= published - 3; ΔToM/T within 0.03 of 004's, under the default ``reciprocal`` response,
docs/architecture.md). The means are 004's "mean estimate across opponent policies" (each partner's
mean weighted by its probability, the rows' ``partner_mean``); the pooled means follow per partner.
The oracle best responder and uniform random follow as sanity rows.
Results are written to ``results/`` (``--out``) as they are produced; a rerun resumes. ``--format
json`` prints the same as one JSON object, ``--plot DIR`` draws each cell's per-round figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.matrix.cells import evaluate, partner_mean_view
from benchmarks.matrix.table import format_table, meets_target, plot, tom_regret_close
from tom_envs.matrix.games import GAMES
from tom_envs.matrix.oracle import relevance
from tom_envs.matrix.partners import resolve_partners

GAMES_ = ["RPS", "IBS", "IPD"]
POPULATIONS = ["single_action", "tit_for_tat"]


@dataclass(frozen=True)
class DemoOutput:
    """What the demo writes beside its records: ``format`` (``table``: the tables and notes; ``json``: one
    JSON object, nothing else on stdout) and ``plot`` (a folder for the matrix figures, or None)."""

    format: str = "table"
    plot: str | None = None
    real_model: bool = True


def main(
    out: Path = Path("results"),
    episodes: int = 30,
    seed: int = 0,
    progress: bool = True,
    output: DemoOutput | None = None,
) -> int:
    """Run the demo (resuming from ``out``); print its tables, or with ``output.format == "json"`` one JSON
    object (``rows``: the Tabular rows as 004's partner means, ``meets_target`` and ``tom_within_003`` per
    row, ``sanity``, ``relevance``, ``records``, ``report``) and nothing else; ``output.plot``: the matrix
    figures of every cell (:func:`benchmarks.matrix.table.plot`) into that folder."""
    output = output or DemoOutput()
    text = output.format != "json"
    say = print if text else (lambda *a, **k: None)
    pooled, records = evaluate(GAMES_, POPULATIONS, ["tabular"], episodes, seed, 100, out, progress=progress)
    # 004 gives "the mean estimate across opponent policies": each partner's mean, weighted by its probability
    rows = [partner_mean_view(r) for r in pooled]
    say(f"Tabular RMax vs seed 004's Table 4 ({episodes} episodes of 100 rounds per cell, mean ± 95% CI):\n")
    say(format_table(rows, published=True))
    met = sum(meets_target(r) for r in rows)
    say(f"\n{met}/{len(rows)} cells meet the target (regret/T <= 1.5 x published + 0.03, ToM % >= published - 3).")
    close = sum(tom_regret_close(r) for r in rows)
    say(f"{close}/{len(rows)} cells have ΔToM/T within 0.03 of 004's.")
    for r in pooled:  # the pooled mean follows the partner draws of the seeds: show both where they differ
        if len(r["per_partner"]) > 1:
            parts = ", ".join(
                f"{name} {e['tom_regret_per_step']:.3f} ({e['episodes']} episodes)"
                for name, e in r["per_partner"].items()
            )
            say(
                f"  {r['game']} {r['partners']}: ΔToM/T by partner: {parts}; pooled over episodes "
                f"{r['tom_regret_per_step']:.3f} ({'within' if tom_regret_close(r) else 'not within'} 0.03)"
            )
    say(
        "ΔToM/T charges each wrong prediction with the cost of acting on it. The reciprocal response (best\n"
        "response with a one-step look-ahead at a partner that answers in kind) reproduces 004's tables; it equals\n"
        "the stage-game best response in RPS and IBS, and in the IPD it cooperates when it predicts cooperation, so\n"
        "a wrong prediction costs 5 (predicted C, partner defected) or 2 (predicted D, partner cooperated). Under\n"
        "the stage-game response the IPD column is 0: defecting is the best response to any prediction."
    )
    sanity, sanity_records = evaluate(
        GAMES_, POPULATIONS, ["oracle", "random"], episodes, seed, 100, out, progress=progress
    )
    say("\nSanity rows: the exact best responder (regret 0) and uniform random:\n")
    say(format_table(sanity))
    say("\nRelevance of each partner population (004 §2.1; 1.0 for RPS vs single-action):")
    relevance_rows = []
    for game in GAMES_:
        for pop in POPULATIONS:
            dist = resolve_partners(game, pop)
            value = relevance(GAMES[game], dist.partners, dist.weights)
            relevance_rows.append({"game": game, "partners": pop, "relevance": value})
            say(f"  {game} {pop:<14} {value:.3f}")
    llm_rows = real_model_cell(out, seed, progress, say) if output.real_model else []
    say(f"\nEpisode records: {out.resolve()}/matrix/*.jsonl (rerunning resumes from them)")
    from benchmarks.report import build_report  # the report of everything under out (docs/report.md)

    report = build_report(out, out / "report")["index"].resolve()
    say(f"Report: {report}")
    figures = plot({**records, **sanity_records}, Path(output.plot)) if output.plot else []
    for path in figures:
        say(f"wrote {path}")
    if not text:
        print(
            json.dumps(
                {
                    "rows": [
                        {**r, "meets_target": meets_target(r), "tom_within_003": tom_regret_close(r)} for r in rows
                    ],
                    "sanity": sanity,
                    "relevance": relevance_rows,
                    "real_model": llm_rows,
                    "records": str((out / "matrix").resolve()),
                    "report": str(report),
                    "figures": [str(p) for p in figures],
                },
                indent=2,
            )
        )
    return 0


#: The demo's real-model cell: 004's LM prompting (label scoring: no parsing, no sampling) by the real small
#: model on IPD vs tit-for-tat, short enough for a 2-core CPU, beside the scripted rows of the same cell and T.
REAL_MODEL_CELL = {"game": "IPD", "partners": "tit_for_tat", "strategy": "lm", "horizon": 20, "episodes": 2}


#: vLLM's own log level in the demo, unless the user set ``VLLM_LOGGING_LEVEL`` (``VLLM_LOGGING_LEVEL=INFO`` brings
#: back the engine's ~50 start-up lines, its notes on the CPU build's missing kernels among them); the demo's
#: progress lines are its own and stay visible.
DEMO_VLLM_LOGGING_LEVEL = "ERROR"


def quiet_engine_logs() -> None:
    """Keep vLLM's start-up log (INFO lines) out of the demo's output, where the user has not asked for a level.
    Set before vLLM is imported (it reads the level once, at import; its engine processes inherit it)."""
    import os

    os.environ.setdefault("VLLM_LOGGING_LEVEL", DEMO_VLLM_LOGGING_LEVEL)


def real_model_cell(out: Path, seed: int, progress: bool, say) -> list[dict]:
    """The real small model (``smollm2-135m``, :mod:`policies.llm.models`) on :data:`REAL_MODEL_CELL`, in vLLM in
    this process (its log at ERROR unless ``VLLM_LOGGING_LEVEL`` is set: :func:`quiet_engine_logs`), printed
    beside tabular, random and the oracle on the same cell and horizon; returns all rows."""
    quiet_engine_logs()  # before anything imports vLLM
    import argparse

    from benchmarks.cli_backends import build_backend
    from benchmarks.cli_llm import llm_settings
    from benchmarks.matrix.benchmark import add_arguments
    from benchmarks.matrix.cells import Grid, RunSettings
    from benchmarks.matrix.llm_cells import evaluate_llm
    from policies.llm.models import DEFAULT_MODEL

    c = REAL_MODEL_CELL
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(
        ["--policy", "llm", "--model", DEFAULT_MODEL, "--max-model-len", "4096", "--seed", str(seed)]
    )
    grid = Grid([c["game"]], [c["partners"]], [c["strategy"]], c["episodes"], seed, c["horizon"])
    scripted, _ = evaluate(
        grid.games,
        grid.partners,
        ["tabular", "random", "oracle"],
        c["episodes"] * 15,
        seed,
        c["horizon"],
        out,
        progress=progress,
    )
    say(
        f"\nA real model: {DEFAULT_MODEL} (SmolLM2-135M-Instruct, in vLLM on this machine), 004's LM prompting on "
        f"{c['game']} vs {c['partners']}, T = {c['horizon']}, {c['episodes']} episodes, beside the scripted rows of "
        "the same cell:\n"
    )
    backend = build_backend("vllm", DEFAULT_MODEL, seed=seed, max_model_len=4096)
    try:
        rows, _ = evaluate_llm(
            grid, out, backend, llm_settings(args), run=RunSettings(progress=progress, lockstep=c["episodes"])
        )
    finally:
        backend.close()
    say(format_table(rows + scripted))
    say(
        "The model's row is a real 135M model's, read against the floors beside it (random; tabular learns the "
        "partner;\nthe oracle is exact). docs/results/ has it in every family (make results)."
    )
    return rows + scripted
