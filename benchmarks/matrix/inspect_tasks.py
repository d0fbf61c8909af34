"""The matrix games as Inspect AI tasks (``inspect eval tom_envs/ipd``; docs/harnesses.md).

One agentic task per registered single-agent game (``ipd``, ``rps``, ``ibs``): a Sample is one
episode (seed) against a partner drawn from the population, played by 004's prompting strategy
(:func:`policies.matrix.llm.make_llm_policy`) on the eval's model, exactly as ``tom-envs matrix
--policy llm --strategies S`` plays a cell (same policy options, same cell, same record). The
partners are scripted (no model role). Scores: ``regret_per_step`` (ΔFunctional/T),
``tom_regret_per_step`` (ΔToM/T, reciprocal response) and ``tom_accuracy`` (ToM %).

Task parameters beyond the shared ones: ``strategy`` (a generating strategy: ``qa``, ``cot``, ...;
the label-scoring ``lm`` needs log-probabilities an Inspect model does not give), ``partners``,
``label_set``, ``temperature``, ``max_tokens``, ``history_window``. ``-T env`` names one of the
game ids (``tom/RPS-v0`` on the ``ipd`` task plays RPS, as ``--games RPS`` does); ``data_dir`` is
refused (the games read no data).
"""

from __future__ import annotations

from typing import Any

import tom_envs
from benchmarks.harnesses.inspect_spec import EpisodeRun, EpisodeTask, InspectTaskError

OPTIONS = {
    "strategy": "qa",
    "partners": "tit_for_tat",
    "label_set": "neutral",
    "temperature": None,
    "max_tokens": None,
    "history_window": None,
}
METRICS = ("regret_per_step", "tom_regret_per_step", "tom_accuracy")
HORIZON = 100
REFUSES = {"data_dir": "the matrix games read no data"}


def _named_game(env_id: str) -> str | None:
    game = tom_envs.REGISTRY[env_id].kwargs.get("game")
    return game if isinstance(game, str) else None


def check(options: Any) -> None:
    """``-T env`` must name a game's id (tom/MatrixGame-v0 takes its game as an argument the task has not)."""
    if _named_game(str(options["env"])) is None:
        games = ", ".join(i for i in tom_envs.ids(kind="gymnasium", family="matrix") if _named_game(i))
        raise InspectTaskError(
            f"-T env={options['env']} takes its payoff table as an argument; the matrix tasks play one of {games}"
        )


def play(run: EpisodeRun) -> dict[str, Any]:
    """One episode of ``run.env_id`` as the family's LLM cell plays it; the cell's record."""
    from benchmarks.matrix.llm_cells import LLMCell
    from policies.matrix.llm import make_llm_policy
    from policies.matrix.llm.policy import DEFAULT_TEMPERATURE

    opts = run.options
    game = tom_envs.REGISTRY[run.env_id].kwargs["game"]
    horizon = int(opts["horizon"] or HORIZON)
    strategy = str(opts["strategy"])
    policy = make_llm_policy(
        strategy,
        run.backends[None],
        game,
        label_set=opts["label_set"],
        horizon=horizon,
        seed=int(opts["seed"]),
        max_resamples=int(opts["max_resamples"]),
        fallback=str(opts["fallback"]),
        temperature=DEFAULT_TEMPERATURE if opts["temperature"] is None else float(opts["temperature"]),
        max_tokens=None if opts["max_tokens"] is None else int(opts["max_tokens"]),
        history_window=None if opts["history_window"] is None else int(opts["history_window"]),
    )
    identity = {"backend": "inspect", "model": run.backends[None].name, "base_url": None}
    env_kwargs = {"expose_partner_action": True} if strategy.startswith("oracle") else {}
    cell = LLMCell(
        run.env_id, str(opts["partners"]), f"llm:{strategy}", horizon, {**identity, **policy.result_params}, env_kwargs
    )
    result = cell.play_batch([cell.make_env()], policy, [run.seed])[0]
    return cell.record(run.seed, result)


def split_options(env_id: str, split: str) -> dict[str, Any]:
    """The partners of ``split`` as ``tom-envs rl`` draws them (:func:`benchmarks.matrix.rl.split_partners`)."""
    from benchmarks.matrix.rl import split_partners

    return {"partners": split_partners(env_id, split)}


def _tasks() -> tuple[EpisodeTask, ...]:
    ids = tom_envs.ids(kind="gymnasium", family="matrix")
    named = [i for i in ids if isinstance(tom_envs.REGISTRY[i].kwargs.get("game"), str)]
    return tuple(
        EpisodeTask(
            name=tom_envs.REGISTRY[i].kwargs["game"].lower(),
            env_id=i,
            play=play,
            metrics=METRICS,
            options=OPTIONS,
            description=f"{i}: 004's prompting strategies vs scripted partners",
            refuses=REFUSES,
            check=check,
            reward="-regret_per_step",
            split_options=split_options,
        )
        for i in named
    )


TASKS = _tasks()
