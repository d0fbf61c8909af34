"""``tom-envs matrix --policy llm``: 004's prompting strategies on every cell of a :class:`~benchmarks.matrix.cells.Grid`.

Each strategy's cell (:class:`LLMCell`) runs through the generic runner
(:func:`benchmarks.runner.run_cell`) one lockstep batch at a time: the cell plays a batch with
:func:`benchmarks.matrix.llm.play_checkpointed`, which journals every finished round, and the
runner appends the batch's records to the results file; the journal goes once they are there.
The run's identity in the cell keys is :meth:`benchmarks.cli.LLMSettings.identity`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from benchmarks.cli_llm import LLMSettings
from benchmarks.errors import RunnerError
from benchmarks.matrix.cells import Cell, Grid, RunSettings, summarise
from benchmarks.matrix.llm import Journal, play_checkpointed
from benchmarks.records import STEPS_FORMAT
from benchmarks.runner import progress_bar, run_cell
from benchmarks.runner_episodes import EpisodeResult
from policies import BasePolicy

__all__ = ["Budget", "LLMCell", "PromptOptions", "evaluate_llm"]


@dataclass(frozen=True)
class PromptOptions:
    """How the strategies prompt (``tom-envs matrix``'s LLM group; what can change a cell's results
    goes into its key through :attr:`~policies.matrix.llm.policy.LLMMatrixPolicy.result_params`).

    Attributes:
        label_set: the action labels the LLM reads.
        temperature: sampling temperature of the generating strategies (None: the policy's default).
        max_tokens: generation cap of every generating stage (None: each stage's default).
        history_window: prompts show only the latest K rounds (None: every round).
        scoring: LM prompting's label scores, ``sum`` or ``mean`` of the token log-probabilities.
    """

    label_set: str = "neutral"
    temperature: float | None = None
    max_tokens: int | None = None
    history_window: int | None = None
    scoring: str = "sum"


@dataclass(frozen=True)
class Budget:
    """004's protocol: with ``time_budget_s`` a cell plays at least ``--episodes`` episodes, then
    further lockstep batches while its wall time is under the budget, up to ``max_episodes``
    (default 100); without a budget it plays ``max_episodes`` (default: ``--episodes``)."""

    time_budget_s: float | None = None
    max_episodes: int | None = None

    def target(self, episodes: int) -> int:
        """The most episodes per cell."""
        target = (
            self.max_episodes
            if self.max_episodes is not None
            else (100 if self.time_budget_s is not None else episodes)
        )
        if target < episodes:
            raise RunnerError(
                f"--max-episodes ({target}) must be at least --episodes ({episodes}), the minimum per cell"
            )
        return target

    def allows(self, spent: float) -> bool:
        """Whether a cell that spent ``spent`` seconds plays another batch of its extra episodes."""
        return self.time_budget_s is None or spent < self.time_budget_s


@dataclass
class Checkpoint:
    """What an :class:`LLMCell` keeps while it runs (never part of its key): the journal of the batch
    in flight, a hook called after each round (progress), each played episode's share of its
    batch's wall time until its record is written and the wall time of the last batch played."""

    journal: Journal | None = None
    on_round: Callable[[int], Any] | None = None
    walls: dict[int, float] = field(default_factory=dict)
    last_wall: float = 0.0


@dataclass(frozen=True)
class LLMCell(Cell):
    """An LLM strategy's cell: lockstep batches journaled round by round (:func:`play_checkpointed`);
    its records carry ``steps_format`` and ``wall_s`` (the episode's share of its batch's wall time)."""

    checkpoint: Checkpoint = field(default_factory=Checkpoint, compare=False, repr=False)

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        return self.play_batch([env], policy, [seed])[0]

    def play_batch(self, envs: Sequence[Any], policy: Any, seeds: Sequence[int]) -> list[EpisodeResult]:
        played, wall = play_checkpointed(
            envs, policy, seeds, self.checkpoint.journal, on_round=self.checkpoint.on_round
        )
        for seed in seeds:
            self.checkpoint.walls[seed] = wall / len(seeds)
        self.checkpoint.last_wall = wall
        return played

    def record(self, seed: int, result: Any) -> dict[str, Any]:
        rec = super().record(seed, result)
        rec["steps_format"] = STEPS_FORMAT
        rec["wall_s"] = self.checkpoint.walls.pop(seed)
        return rec


def evaluate_llm(
    grid: Grid,
    out: Path,
    backend: Any,
    llm: LLMSettings,
    prompts: PromptOptions = PromptOptions(),
    budget: Budget = Budget(),
    run: RunSettings = RunSettings(lockstep=None),
) -> tuple[list[dict], dict[tuple, list[dict]]]:
    """004's prompting strategies (``grid.policies``) on every cell, all episodes of a cell in
    lockstep by default (``run.lockstep`` None).

    ``llm`` is the LLM option group (:func:`benchmarks.cli.llm_settings`): its
    :meth:`~benchmarks.cli.LLMSettings.identity` (backend kind, model, openai base URL -- never an
    API key) goes into the cell keys, so results of different models never mix and reruns resume;
    so do the settings that can change a cell's results and only those
    (:attr:`~policies.matrix.llm.policy.LLMMatrixPolicy.result_params`: an LM cell, which never
    samples, keeps its key whatever ``fallback``, ``temperature`` or ``max_tokens``). Its
    ``fallback`` and ``max_resamples`` go to the policies, its ``max_model_len`` (default: the
    backend's) plans the context.

    Before anything runs, the context is planned (:func:`policies.matrix.llm.context.check_context`):
    the longest request of every (strategy, game) at round ``horizon``, counted with the backend's
    tokenizer against the context length, and a run that would not fit stops at once with
    :class:`~policies.matrix.llm.context.ContextTooLong` (the numbers and the flags that fix it).
    Every finished round of the lockstep batch in flight is journaled
    (:func:`benchmarks.matrix.llm.play_checkpointed`): a crash or kill loses at most that round, and
    a rerun resumes from it. ``budget``: 004's protocol (:class:`Budget`); rows summarise every
    recorded episode of the cell's seeds.
    """
    from policies.matrix.llm import STRATEGIES, make_llm_policy
    from policies.matrix.llm.policy import DEFAULT_TEMPERATURE

    unknown = [s for s in grid.policies if s not in STRATEGIES]
    if unknown:
        raise RunnerError(f"unknown strategies {unknown}; choose from {', '.join(STRATEGIES)}")
    target = budget.target(grid.episodes)
    identity = llm.identity()
    options = {
        "label_set": prompts.label_set,
        "horizon": grid.horizon,
        "seed": grid.seed,
        "max_resamples": llm.get("max_resamples", 10),
        "fallback": llm.get("fallback", "raise"),
        "temperature": DEFAULT_TEMPERATURE if prompts.temperature is None else prompts.temperature,
        "max_tokens": prompts.max_tokens,
        "history_window": prompts.history_window,
        "scoring": prompts.scoring,
    }
    planned = _plan_context(grid, backend, llm.get("max_model_len"), prompts)
    seeds = grid.seeds
    more = list(range(grid.seed + grid.episodes, grid.seed + target))
    rows, records = [], {}
    for game, pop, strategy in grid.combinations():
        policy = make_llm_policy(strategy, backend, game, **options)
        params = {**identity, **policy.result_params}
        env_kwargs = {"expose_partner_action": True} if strategy.startswith("oracle") else {}
        cell = LLMCell(game, pop, f"llm:{strategy}", grid.horizon, params, env_kwargs)
        recs = _run_llm_cell(cell, policy, (seeds, more), out, budget, run.lockstep or grid.episodes, run.progress)
        records[(game, pop, cell.policy)] = recs
        row = summarise(cell, recs, run.tom_response)
        row.update(
            strategy=strategy,
            model=identity.get("model"),
            label_set=prompts.label_set,
            history_window=prompts.history_window,
            scoring=prompts.scoring if policy.strategy.needs_scoring else None,
            context_tokens=planned.get((policy.game.name, policy.strategy.name)),
            time_budget_s=budget.time_budget_s,
            max_episodes=target,
            wall_s=round(sum(float(r.get("wall_s") or 0.0) for r in recs), 3),
            settings=params,
        )
        rows.append(row)
    return rows, records


def _plan_context(grid: Grid, backend: Any, max_model_len: int | None, prompts: PromptOptions) -> dict[tuple, int]:
    """The planned longest request (tokens) of every (game, strategy); stops a run that would not fit."""
    from policies.matrix.llm.context import check_context
    from policies.matrix.llm.strategies import backend_tokenizer

    limit = max_model_len or getattr(backend, "max_model_len", None)
    tokenizer = backend_tokenizer(backend)
    if limit and tokenizer is not None:
        needs = check_context(
            list(grid.policies),
            list(grid.games),
            tokenizer,
            int(limit),
            label_set=prompts.label_set,
            horizon=grid.horizon,
            history_window=prompts.history_window,
            max_tokens=prompts.max_tokens,
        )
        return {(n.game, n.strategy): n.tokens for n in needs}
    if limit:
        print(
            f"warning: the context was not planned (the backend has no tokenizer to count prompts with; give "
            f"--tokenizer); a prompt longer than {limit} tokens fails when it is sent",
            file=sys.stderr,
        )
    return {}


def _run_llm_cell(
    cell: LLMCell,
    policy: BasePolicy,
    seeds: tuple[Sequence[int], Sequence[int]],
    out: Path,
    budget: Budget,
    lockstep: int,
    progress: bool | None,
) -> list[dict]:
    """Every recorded episode of an LLM cell after playing what is missing (see :func:`evaluate_llm`):
    ``seeds = (always, more)``, ``more`` while the budget lasts. Each lockstep batch is one
    :func:`~benchmarks.runner.run_cell` of the batch's seeds; a batch a kill interrupted goes first."""
    always, more = list(seeds[0]), list(seeds[1])
    size = max(1, int(lockstep))
    with cell.results(out) as results:  # what is recorded already, and the journal of a batch in flight
        path = cell.path(out)
        journal = Journal(path.with_name(path.name + ".inflight"), cell.key)
        spent = sum(float(results[s].get("wall_s") or 0.0) for s in [*always, *more] if s in results)
        todo, extra = results.missing(always), results.missing(more)

    def batches(wanted: list[int]) -> list[list[int]]:
        if journal.seeds and set(journal.seeds) <= set(wanted):
            rest = [s for s in wanted if s not in journal.seeds]
            return [list(journal.seeds)] + [rest[i : i + size] for i in range(0, len(rest), size)]
        return [wanted[i : i + size] for i in range(0, len(wanted), size)]

    bar = progress_bar(
        len(todo) + (0 if budget.time_budget_s is not None else len(extra)), cell.slug().replace("_", " "), progress
    )
    cell.checkpoint.journal = journal
    cell.checkpoint.on_round = lambda r: bar.set_postfix_str(f"round {r}/{cell.horizon}")
    try:
        for batch in batches(todo):
            spent += _play(cell, policy, batch, out)
            bar.update(len(batch))
        for batch in batches(extra):
            if not budget.allows(spent):
                break
            spent += _play(cell, policy, batch, out)
            bar.update(len(batch))
    finally:
        bar.close()
    with cell.results(out) as results:
        return [results[s] for s in [*always, *more] if s in results]


def _play(cell: LLMCell, policy: BasePolicy, batch: list[int], out: Path) -> float:
    """One lockstep batch through the runner; its records are written, so its journal goes. Returns
    the batch's wall time."""
    cell.checkpoint.last_wall = 0.0
    run_cell(cell, batch, out, False, factory=lambda: policy, lockstep=len(batch))
    if cell.checkpoint.journal is not None:
        cell.checkpoint.journal.remove()
    return cell.checkpoint.last_wall
