"""How often, and with which moves, the mediator RL agents and the scripted references intervene.

``tom-envs rl`` rows carry the functional outcome (``cc``); an agent that never intervenes scores the
``none`` mediator's ``cc``, so a reader needs its intervention rate beside it. This module plays the
saved agents of a ``tom-envs rl --env ID --out DIR`` run (greedy, as the rows' evaluation does) and the
scripted references on the same split and episode seeds, and reports per policy the interventions per
turn and the share of each move::

    python -m benchmarks.negotiation.rl_interventions --env tom/Negotiation-Hard-v1 --out results

(the newest saved model of each training seed under ``DIR/rl/models``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.negotiation.rl import REFERENCES, make_env


def rates(env_id: str, split: str, act: Callable[[Any, Any, dict], Any], seeds: Sequence[int]) -> dict[str, Any]:
    """Play ``act(env, observation, info) -> action`` on ``split`` for episodes ``seeds``; returns the
    interventions per turn (``rate``), the mean ``cc`` and each strategy's share of the interventions."""
    env = make_env(env_id, split)
    turns, strategies, ccs = 0, Counter(), []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(act(env, obs, info))
            done = terminated or truncated
        summary = info["episode"]
        turns += summary["turns"]
        strategies.update(iv["strategy"] for iv in summary["interventions"])
        ccs.append(env.tom_outcome()["cc"])
    env.close()
    n = sum(strategies.values())
    return {
        "rate": n / max(turns, 1),
        "cc": float(np.mean(ccs)),
        "strategies": {k: v / n for k, v in sorted(strategies.items())} if n else {},
    }


def saved_models(env_id: str, out: Path, algo: str = "ppo") -> dict[int, Path]:
    """The newest saved model of each training seed of ``env_id`` under ``out/rl/models``."""
    found: dict[int, Path] = {}
    for path in sorted(
        (Path(out) / "rl" / "models").glob(f"{algo}_{env_id.replace('/', '-')}_s*_*.zip"),
        key=lambda p: p.stat().st_mtime,
    ):
        if "_probe_" in path.name or path.name.endswith(".partial.zip"):
            continue
        seed = int(path.name[len(f"{algo}_{env_id.replace('/', '-')}_s") :].split("_")[0])
        found[seed] = path
    return found


def report(env_id: str, out: Path, split: str = "test", episodes: int = 60, algo: str = "ppo") -> dict[str, Any]:
    """The intervention rates of the saved agents (per training seed and their mean) and of the references."""
    from benchmarks.rl_train import algorithm, one_thread
    from policies.negotiation.scripted import make_mediator

    seeds = list(range(episodes))
    result: dict[str, Any] = {"env_id": env_id, "split": split, "episodes": episodes}
    cls, _ = algorithm(algo)
    with one_thread():
        agents = {}
        for seed, path in sorted(saved_models(env_id, out, algo).items()):
            model = cls.load(path, device="cpu")
            agents[seed] = rates(
                env_id, split, lambda env, obs, info, model=model: int(model.predict(obs, deterministic=True)[0]), seeds
            )
        if agents:
            mix = Counter()
            for a in agents.values():
                mix.update({k: v / len(agents) for k, v in a["strategies"].items()})
            result[algo] = {
                "rate": float(np.mean([a["rate"] for a in agents.values()])),
                "cc": float(np.mean([a["cc"] for a in agents.values()])),
                "strategies": dict(sorted(mix.items())),
                "per_seed": agents,
            }
    for name in REFERENCES:
        policy = make_mediator(name)

        def act(env: Any, obs: Any, info: dict, policy: Any = policy) -> Any:
            if env.current.aec.unwrapped.turn == 0:
                policy.reset(None)
            return policy.act(obs, info)

        result[name] = rates(env_id, split, act, seeds)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.negotiation.rl_interventions", description=__doc__)
    parser.add_argument("--env", required=True)
    parser.add_argument("--out", default="results")
    parser.add_argument("--split", default="test")
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--algo", default="ppo")
    args = parser.parse_args(argv)
    print(json.dumps(report(args.env, Path(args.out), args.split, args.episodes, args.algo), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
