"""How long live persuasion v2 takes to reset, per family (issue 27's "T = 8 resets in under 10 s").

A reset of ``tom/Persuasion-v2`` computes the family's references and the Bayes persuader's vectors
once per (family, horizon) (:mod:`tom_envs.persuasion.planning_v2`); this measures making the env and its first
reset, with the caches emptied before each family, and, as a reference measured in the same run, v1's exact
planning at T = 4 for the same family (``--no-v1`` skips it)::

    python -m benchmarks.persuasion.live_timing --horizons 4,8,10
"""

from __future__ import annotations

import argparse
import json
import time


def reset_seconds(env_id: str, family: str, horizon: int) -> float:
    """Wall-clock seconds to make ``env_id`` for ``family`` at ``horizon`` and reset it once (caches emptied:
    the model's compilation and all planning included)."""
    import tom_envs
    from tom_envs.persuasion import mind, mind_v2, planning, planning_v2

    for store in (
        mind._MODELS,
        mind_v2._MODELS,
        planning._PLANNERS,
        planning._TABLES,
        planning._REFS,
        planning_v2._PLANNERS,
        planning_v2._REFS,
    ):
        store.clear()
    start = time.perf_counter()
    env = tom_envs.make(env_id, families=family, horizon=horizon).unwrapped
    env.reset(seed=0)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    from tom_envs.persuasion.scenarios import FAMILIES_V2

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--horizons", default="4,8,10")
    parser.add_argument("--no-v1", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for f in FAMILIES_V2:
        row = {"family": f.name}
        for h in (int(x) for x in args.horizons.split(",")):
            row[f"v2_T{h}_s"] = round(reset_seconds("tom/Persuasion-v2", f.name, h), 2)
        if not args.no_v1:
            row["v1_T4_exact_s"] = round(reset_seconds("tom/Persuasion-v1", f.name, 4), 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
