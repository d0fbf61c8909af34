"""How fast the negotiation grid runs now, against an earlier commit measured in the same run.

::

    python -m benchmarks.negotiation.perf --against <commit> [--cases DIR] [--episodes 5] [--repeats 3] \\
        [--policy none,generic,social] [--mode easy,medium,hard]

Checks the earlier commit out into a temporary git worktree, then runs the same command line
(``python -m benchmarks negotiation --scenarios release ... --format json`` on the case folder
``--cases``, default the downloaded ProMediate cases) in a fresh process for each tree, alternating the
two ``--repeats`` times, each into an empty results folder. Prints the best wall time of each and the
ratio (reference / now), and how many episode records differ on the keys the reference's records have
(issue 28 changed the Flagship import, so those differ; every other record must be equal).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def _run(root: Path, argv: list[str], cases: Path, out: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(root), "TOM_ENVS_PROMEDIATE_CASES": str(cases)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv, "--out", str(out)],
        cwd=root,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def _records(out: Path) -> dict[tuple, dict]:
    recs = {}
    for path in sorted((out / "negotiation").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            recs[(path.name, rec["scenario"], rec["seed"])] = rec["episode"]
    return recs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.negotiation.perf",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--against", required=True, help="the reference commit")
    parser.add_argument("--cases", default=None, help="folder of the six ProMediate case files (default: downloaded)")
    parser.add_argument("--episodes", type=int, default=5, help="runs per case and cell (the benchmark's default 5)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--policy", default="none,generic,social")
    parser.add_argument("--mode", default="easy,medium,hard")
    args = parser.parse_args(argv)
    root = Path(_git(Path.cwd(), "rev-parse", "--show-toplevel"))
    if args.cases is None:
        from tom_envs.negotiation.download import downloaded_cases

        found = downloaded_cases()
        if not found:
            parser.error("no downloaded ProMediate cases; pass --cases <clone>/cases")
        cases = Path(found[0]).parent
    else:
        cases = Path(args.cases)
    command = [
        "negotiation",
        "--scenarios",
        "release",
        "--policy",
        args.policy,
        "--mode",
        args.mode,
        "--episodes",
        str(args.episodes),
        "--format",
        "json",
    ]
    best = {"reference": float("inf"), "now": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "reference"
        _git(root, "worktree", "add", "--detach", str(ref), args.against)
        try:
            for r in range(args.repeats):
                for label, tree in (("reference", ref), ("now", root)):
                    out = Path(tmp) / f"out_{label}_{r}"
                    best[label] = min(best[label], _run(tree, command, cases, out))
            old, new = _records(Path(tmp) / "out_reference_0"), _records(Path(tmp) / "out_now_0")
        finally:
            _git(root, "worktree", "remove", "--force", str(ref))
    differ = sorted({Path(k[1]).stem for k, ep in old.items() if any(ep[key] != new[k].get(key) for key in ep)})
    print(f"command: python -m benchmarks {' '.join(command)} (cases {cases})")
    print(
        f"reference {args.against[:12]}: {best['reference']:.2f} s; now: {best['now']:.2f} s (best of "
        f"{args.repeats}); speed-up {best['reference'] / best['now']:.2f}x"
    )
    print(f"records: {len(old)}; differing on the reference's keys: {differ or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
