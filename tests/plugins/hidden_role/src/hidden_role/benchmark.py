"""``tom-envs hidden-role``: the hidden-role family's benchmark declaration (the ``benchmarks`` layer).

One :class:`benchmarks.family.Benchmark`; the command, its shared options (``--episodes --seed --out
--format --policy --env --lockstep``, and the LLM options for its ``llm_policies``), the runner, the
ToM recorder and the resumable results files come from the generic path
(:func:`benchmarks.family.run_command`). A cell is one registered id x one
detective; the other seats are always :class:`~hidden_role.agents.ScriptedPlayer`. The detectives:

* ``tally`` -- :class:`~hidden_role.agents.TallyDetective` (scripted);
* ``random`` -- :class:`~hidden_role.agents.RandomDetective` (chance);
* ``llm`` -- :class:`~hidden_role.agents.LLMDetective` on the LLM options' backend (``--backend
  --model --base-url ...``); ``--lockstep N`` plays N episodes at once, one backend call per turn
  for every episode whose detective is to move.

Rows: ``return`` (the detective's), ``tom_accuracy`` (its guess of the impostor before its vote,
scored when the vote makes the roles public), ``win`` (the innocents won) and ``correct_vote``::

    python -m benchmarks hidden-role --policy tally,random --episodes 50
    python -m benchmarks hidden-role --policy llm --backend openai --base-url URL --model NAME --lockstep 8
"""

from __future__ import annotations

from typing import Any

from benchmarks.family import Benchmark, EnvCell, register

FAMILY = "hidden_role"


def _seats(cell: EnvCell, detective: Any) -> dict[str, Any]:
    """The detective in ``player_0``; one :class:`~hidden_role.agents.ScriptedPlayer` in every other
    seat (a seat -> policy table: the runner plays AEC cells with one)."""
    import tom_envs
    from hidden_role.agents import ScriptedPlayer

    n = {**tom_envs.registration.record(cell.env_id).kwargs, **cell.env_kwargs}.get("n_players", 4)
    others = ScriptedPlayer()
    return {"player_0": detective, **{f"player_{i}": others for i in range(1, n)}}


def _tally(cell: EnvCell) -> dict[str, Any]:
    from hidden_role.agents import TallyDetective

    return _seats(cell, TallyDetective())


def _random(cell: EnvCell) -> dict[str, Any]:
    from hidden_role.agents import RandomDetective

    return _seats(cell, RandomDetective())


def _llm(cell: EnvCell) -> dict[str, Any]:
    """The LLM detective on the cell's LLM options (``llm_policies``: the command adds them)."""
    from hidden_role.agents import LLMDetective

    params = cell.policy_params
    return _seats(
        cell, LLMDetective(cell.backend(), max_resamples=params["max_resamples"], fallback=params["fallback"])
    )


BENCHMARK = register(
    Benchmark(
        name="hidden-role",
        family=FAMILY,
        help="hidden-role game: a detective seat finds the impostor (tally, random or an LLM)",
        description=__doc__,
        policies={"tally": _tally, "random": _random, "llm": _llm},
        llm_policies=("llm",),
        metrics=("return", "tom_accuracy", "win", "correct_vote"),
        episodes=20,
    )
)
