"""``python -m benchmarks persuasion``: 001's tables on the QA env, and the live env's rows.

QA (default)::

    python -m benchmarks persuasion --data-dir DIR --policy random --repetitions 3 --format json

prints one row per question type present (Table 5's column order) with ``qtype`` (the published
file name), ``n`` (questions per repetition), ``accuracy`` (percent, mean over repetitions),
``accuracy_ci`` (95 % half-width), ``chance`` (uniform guessing, percent); the persuadee rows
add Table 6's ``consistency`` and ``consistency_ci``. Without ``--data-dir`` the bundled sample
is used. ``--env live`` runs the live persuasion env instead (``--policy random,oracle``, ...),
one row per persuader; ``--env both`` prints both lists (every row has an ``env`` key).

An LLM answers the QA questions with ``--policy llm`` (the generic
:class:`~policies.llm.qa.LLMQAAnswerer`)::

    python -m benchmarks persuasion --env qa --policy random,llm --backend vllm --model MODEL_DIR \\
        [--qa-mode zero_shot|cot] [--scoring|--no-scoring] [--fallback raise|random] \\
        [--max-resamples 10] [--max-tokens N] [--max-model-len N] [--lockstep 32] [--out results]
    python -m benchmarks persuasion --policy llm --backend openai --base-url http://127.0.0.1:8000/v1 \\
        --model NAME --qa-mode cot

``zero_shot`` scores the option letters by log-probability by default on ``vllm`` (no sampling)
and asks for a generated ``The answer is X`` on ``openai`` (``--scoring`` scores there too, on
servers that return prompt log-probabilities, such as vLLM's); ``cot`` always generates.
Replies naming no option are re-asked up to ``--max-resamples`` times, then ``--fallback``
raises or picks a uniformly random option. Dialogues with the same number of questions are
answered in lockstep, ``--lockstep`` at a time: one backend call per question position (per
re-ask round) serves all of them. Every answered dialogue is appended at once to a JSONL file
under ``--out/persuasion/`` whose name is keyed by the configuration (model, mode, scoring,
fallback, data, split, question types, seed), so a rerun resumes and recomputes nothing. The llm
rows add ``model``, ``qa_mode``, ``scoring`` and the answerer's counters over all repetitions:
``parse_failures`` (replies naming no option), ``resamples`` (re-asks) and ``fallbacks``
(answers drawn at random after the bound -- not the model's answers).
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable, Sequence

import numpy as np

from benchmarks.qa_llm import (
    RESULTS_VERSION,
    LLMRun,
    add_llm_arguments,
    answer_counters,
    data_key,
    results_path,
)
from benchmarks.records import append_record, read_records
from benchmarks.stats import mean_ci95
from policies.base import BasePolicy
from policies.persuasion import BanditPersuader, OraclePersuader, RandomAnswerer, RandomPersuader
from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.live import PersuasionEnv
from tom_envs.persuasion.metrics import Answer, accuracy_table, consistency_table
from tom_envs.persuasion.qa_env import PersuasiveToMEnv

QA_POLICIES: dict[str, Callable[[], BasePolicy]] = {"random": RandomAnswerer}
LLM_POLICY = "llm"  # the LLM answerer; needs --model (and --base-url for openai)
LIVE_POLICIES: dict[str, Callable[[], BasePolicy]] = {"random": RandomPersuader, "bandit": BanditPersuader,
                                                      "oracle": OraclePersuader}
_REP_STRIDE = 1_000_003  # seeds of repetition r: seed + r * stride + dialogue index


class PersuasionBenchmarkError(TomEnvsError, ValueError):
    """Bad arguments to ``python -m benchmarks persuasion``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add this command's options to ``parser`` (a sub-parser of ``python -m benchmarks``)."""
    parser.add_argument("--env", choices=["qa", "live", "both"], default="qa",
                        help="qa: PersuasiveToM questions; live: the live persuasion env")
    parser.add_argument("--data-dir", default=None, help="folder with the published files (default: bundled sample)")
    parser.add_argument("--policy", default="random",
                        help=f"comma-separated; qa: {', '.join([*QA_POLICIES, LLM_POLICY])}; "
                             f"live: {', '.join(LIVE_POLICIES)}")
    parser.add_argument("--live-policy", default="random,oracle", help="persuaders for --env both")
    parser.add_argument("--qtypes", default=None, help="comma-separated question types (default: all present)")
    parser.add_argument("--split", default="all", help="all, dev or test")
    parser.add_argument("--repetitions", type=int, default=3, help="qa: full passes over the dialogues")
    parser.add_argument("--episodes", type=int, default=300, help="live: episodes per persuader")
    parser.add_argument("--horizon", type=int, default=5, help="live: turn budget")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_llm_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run the command; prints the rows and returns the exit status."""
    rows: list[dict[str, Any]] = []
    if args.env in ("qa", "both"):
        names = _split(args.policy) if args.env == "qa" else ["random"]
        _check_qa_policies(names)
        llm = LLMRun.from_args(args) if LLM_POLICY in names else None
        rows += qa_rows(args.data_dir, names, args.repetitions, args.seed,
                        None if args.qtypes is None else _split(args.qtypes), args.split, llm=llm)
    if args.env in ("live", "both"):
        names = _split(args.policy) if args.env == "live" else _split(args.live_policy)
        rows += live_rows(names, args.episodes, args.seed, args.horizon)
    print(json.dumps(rows, indent=2) if args.format == "json" else format_table(rows))
    return 0


def policy_seed(seed: int) -> int:
    """The policy's seed for an episode seeded ``seed``: derived, so that the policy's stream
    differs from the env's (``default_rng(seed)`` would replay the env's own draws)."""
    return int(np.random.SeedSequence([seed, 0x5EED]).generate_state(1)[0])


def _split(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


# ---------------------------------------------------------------------- QA
def answer_dialogues(env: PersuasiveToMEnv, policy: BasePolicy, repetitions: int, seed: int) -> list[list[Answer]]:
    """Every dialogue of ``env`` answered ``repetitions`` times (new choice order and policy seed each),
    one dialogue after the other (the scripted policies; the LLM uses :func:`llm_answers`)."""
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    return [[a for i in range(len(env.episodes)) for a in _one_dialogue(env, policy, i, seed + r * _REP_STRIDE + i)]
            for r in range(repetitions)]


def _one_dialogue(env: PersuasiveToMEnv, policy: BasePolicy, index: int, seed: int) -> list[Answer]:
    policy.reset(policy_seed(seed))
    obs, info = env.reset(seed=seed, options={"episode": index})
    answers = []
    while True:
        n_choices = int(obs["n_choices"])
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
        answers.append(Answer(info["qtype"], info["episode_id"], bool(info["correct"]), n_choices))
        policy.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated:
            return answers


def _check_qa_policies(names: Sequence[str]) -> None:
    known = [*QA_POLICIES, LLM_POLICY]
    bad = [n for n in names if n not in known]
    if bad:
        raise PersuasionBenchmarkError(f"unknown QA policy {bad[0]!r}; choose from {', '.join(known)}")


def qa_rows(data_dir: str | None, policies: Sequence[str], repetitions: int, seed: int,
            qtypes: Sequence[str] | None = None, split: str = "all", llm: LLMRun | None = None,
            ) -> list[dict[str, Any]]:
    """Table 5 rows (plus Table 6 consistency on the persuadee rows) per policy.

    ``llm`` runs the ``"llm"`` policy (see :class:`LLMRun`); its rows also carry the answerer's
    counters and its answers are recorded under ``llm.out / "persuasion"`` (resumable).
    """
    _check_qa_policies(policies)
    if LLM_POLICY in policies and llm is None:
        raise PersuasionBenchmarkError("policy 'llm' needs an LLM backend: pass --model (and --backend/--base-url)")
    if repetitions < 1:
        raise PersuasionBenchmarkError(f"--repetitions must be at least 1, got {repetitions}")
    env = PersuasiveToMEnv(data_dir=data_dir, qtypes=qtypes, split=split)
    rows = []
    for name in policies:
        counters: dict[str, dict[str, Any]] = {}
        if name == LLM_POLICY and llm is not None:  # (llm is not None: checked above)
            reps, counters = llm_answers(env, llm, repetitions, seed)
        else:
            reps = answer_dialogues(env, QA_POLICIES[name](), repetitions, seed)
        consistency = {r["qtype"]: r for r in consistency_table(reps)}
        for row in accuracy_table(reps):
            extra = consistency.get(row["qtype"])
            if extra is not None:
                row.update(consistency=extra["consistency"], consistency_ci=extra["consistency_ci"])
            rows.append({"env": "qa", "policy": name, **row, **counters.get(row["qtype"], {})})
    return rows


def llm_answers(env: PersuasiveToMEnv, llm: LLMRun, repetitions: int, seed: int,
                ) -> tuple[list[list[Answer]], dict[str, dict[str, Any]]]:
    """The LLM's answers per repetition (as :func:`answer_dialogues`), and per question type the
    run's identity and counters (``parse_failures``, ``resamples``, ``fallbacks``).

    Dialogue ``i`` of repetition ``r`` uses seed ``seed + r * stride + i``, as the scripted
    policies do. Finished dialogues are read back from the results file; only the others are
    answered, and each is appended to the file as soon as it is done.
    """
    qtypes = sorted({it.qtype for ep in env.episodes for it in ep})
    key = {"version": RESULTS_VERSION, "benchmark": "persuasion-qa", "data_dir": data_key(env.data_dir),
           "split": env.split, "qtypes": qtypes, "seed": seed}
    path = results_path(llm.out / "persuasion", f"qa_llm_{llm.config['qa_mode']}", {**key, "llm": llm.config})
    done = read_records(path, lambda rec: (str(rec["dialogue"]), int(rec["seed"])),
                        lambda rec: [(a["qtype"], a["correct"], a["n_choices"]) for a in rec["answers"]])
    ids = [str(ep[0].episode_id) for ep in env.episodes]
    jobs = [(r, i, seed + r * _REP_STRIDE + i) for r in range(repetitions) for i in range(len(ids))]
    todo = [(r, i, s) for r, i, s in jobs if (ids[i], s) not in done]

    def save(k: int, steps: list[dict], stats: dict) -> None:
        r, i, s = todo[k]
        answers = [{"qtype": st["info"]["qtype"], "turn": int(st["info"]["turn"]), "chosen": int(st["info"]["chosen"]),
                    "correct": bool(st["info"]["correct"]), "n_choices": st["n_choices"],
                    "parse_failures": st["parse_failures"], "fallback": st["fallback"]} for st in steps]
        rec = {"version": RESULTS_VERSION, "dialogue": ids[i], "repetition": r, "seed": s, "answers": answers,
               "llm_stats": stats}
        append_record(path, rec)
        done[(ids[i], s)] = rec

    llm.answer(env, [({"episode": i}, s) for _, i, s in todo], save)
    recs = [[done[(ids[i], s)] for r_, i, s in jobs if r_ == r] for r in range(repetitions)]
    reps = [[Answer(a["qtype"], rec["dialogue"], a["correct"], a["n_choices"]) for rec in rep for a in rec["answers"]]
            for rep in recs]
    answers = [a for rep in recs for rec in rep for a in rec["answers"]]
    counters = {q: {**llm.row_identity(), **answer_counters([a for a in answers if a["qtype"] == q])} for q in qtypes}
    return reps, counters


# ---------------------------------------------------------------------- live
def play_episode(env: PersuasionEnv, policy: BasePolicy, seed: int) -> dict[str, Any]:
    """One live episode: predict (if the policy does), act, observe; returns the episode summary."""
    policy.reset(policy_seed(seed))
    obs, info = env.reset(seed=seed)
    while True:
        if policy.makes_predictions:
            prediction = policy.predict(obs, info)
            if prediction is not None:
                env.record_prediction(**prediction)
        obs, reward, terminated, truncated, info = env.step(policy.act(obs, info))
        policy.observe(obs, reward, terminated, truncated, info)
        if terminated or truncated:
            return info["episode"]


def live_rows(policies: Sequence[str], episodes: int, seed: int, horizon: int = 5) -> list[dict[str, Any]]:
    """One row per persuader: success %, the oracle's success %, regret, literal-ToM accuracies."""
    if episodes < 1:
        raise PersuasionBenchmarkError(f"--episodes must be at least 1, got {episodes}")
    env = PersuasionEnv(horizon=horizon)
    rows = []
    for name in policies:
        if name not in LIVE_POLICIES:
            raise PersuasionBenchmarkError(f"unknown persuader {name!r}; choose from {', '.join(LIVE_POLICIES)}")
        policy = LIVE_POLICIES[name]()
        eps = [play_episode(env, policy, seed + i) for i in range(episodes)]
        row: dict[str, Any] = {"env": "live", "policy": name, "episodes": len(eps), "horizon": horizon}
        row["success"], row["success_ci"] = mean_ci95([100.0 * e["success"] for e in eps])
        row["optimal_success"], row["optimal_success_ci"] = mean_ci95([100.0 * e["optimal_success"] for e in eps])
        row["regret"], row["regret_ci"] = mean_ci95([e["regret"] for e in eps])
        for key in ("desire_accuracy", "attitude_accuracy"):
            row[key], row[key + "_ci"] = mean_ci95([e[key] for e in eps if e[key] is not None])
        rows.append(row)
    return rows


# ---------------------------------------------------------------------- output
def _fmt(m: float | None, ci: float | None, digits: int = 2) -> str:
    return "n/a" if m is None else f"{m:.{digits}f} ± {ci:.{digits}f}"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """Plain-text tables: QA rows (Table 5/6 layout) then live rows."""
    out = []
    qa = [r for r in rows if r["env"] == "qa"]
    if qa:
        head = f"{'policy':<8} {'qtype':<12} {'n':>5} {'accuracy %':>16} {'chance %':>9} {'consistency %':>16}"
        out += [head, "-" * len(head)]
        out += [f"{r['policy']:<8} {r['qtype']:<12} {r['n']:>5} {_fmt(r['accuracy'], r['accuracy_ci']):>16} "
                f"{r['chance']:>9.2f} {_fmt(r.get('consistency'), r.get('consistency_ci')) if 'consistency' in r else '':>16}"
                for r in qa]
        llm = [r for r in qa if "fallbacks" in r]
        for name in dict.fromkeys(r["policy"] for r in llm):
            mine = [r for r in llm if r["policy"] == name]
            first = mine[0]
            out.append(f"{name} ({first['model']}, {first['qa_mode']}{', scored' if first['scoring'] else ''}): "
                       f"{sum(r['fallbacks'] for r in mine)} random fallbacks and {sum(r['resamples'] for r in mine)} "
                       f"re-asks over {sum(r['n'] * r['repetitions'] for r in mine)} answers")
    live = [r for r in rows if r["env"] == "live"]
    if live:
        head = (f"{'persuader':<10} {'episodes':>8} {'success %':>16} {'oracle %':>8} {'regret':>14} "
                f"{'desire ToM %':>16} {'attitude ToM %':>16}")
        out += ([""] if out else []) + [head, "-" * len(head)]
        out += [f"{r['policy']:<10} {r['episodes']:>8} {_fmt(r['success'], r['success_ci'], 1):>16} "
                f"{r['optimal_success']:>8.1f} {_fmt(r['regret'], r['regret_ci'], 3):>14} "
                f"{_fmt(r['desire_accuracy'], r['desire_accuracy_ci'], 1):>16} "
                f"{_fmt(r['attitude_accuracy'], r['attitude_accuracy_ci'], 1):>16}" for r in live]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point (until the command is wired into ``python -m benchmarks``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.persuasion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except TomEnvsError as exc:
        import sys

        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
