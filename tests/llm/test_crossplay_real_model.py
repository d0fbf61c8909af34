"""The real small model (``smollm2-135m``) choosing by log-probability (``--decode score``) in cross-play: one short
pairing of each family's crossplay cell (the matrix LM agent, the persuader and the persuadee), and two decisions
of the negotiation mediator (a whole negotiation episode is 13+ mediator turns, minutes on a 2-core CPU: the
measured run in docs/crossplay.md has those). Every choice is a valid label, so nothing is re-asked or falls
back; what the model scores is in docs/results/, not asserted."""

from __future__ import annotations

import pytest

from tests.llm.test_real_model import _backend, real_model, shared_engine  # noqa: F401  (the module's engine)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("shared_engine")]


def _quiet(*args, **kwargs) -> None:
    pass


def _pairing(env_id: str, horizon: int, row: str, col: str, out):
    """The records of one seed of the ``row`` x ``col`` crossplay cell, the LLM agent scoring on the real model."""
    from benchmarks.crossplay import LLMAgentSpec, Population, cells, tasks
    from benchmarks.runner import run_cell

    spec = LLMAgentSpec(_backend(), {"max_resamples": 0, "fallback": "raise"}, {"model": "smollm2-135m"}, "lm", "score")
    task = tasks()[env_id]
    agents = task.population(env_id, Population(horizon, out / "crossplay", 0, 1, spec, _quiet))
    (cell,) = [c for c in cells(env_id, task, agents, horizon) if (c.row.name, c.col.name) == (row, col)]
    (record,) = run_cell(cell, [0], out)
    return record


def test_the_scoring_llm_agents_play_a_pairing_of_each_seated_family(tmp_path):
    matrix = _pairing("tom/RPS-Parallel-v0", 3, "llm_lm", "tabular", tmp_path)
    assert matrix["episode"]["predictions"] == [3, 3] and matrix["episode"]["tom"][0] is not None
    persuader = _pairing("tom/Persuasion-TwoSeat-v1", 2, "llm_persuader", "persona_skeptic", tmp_path)
    stats = persuader["episode"]["policy_stats"]["persuader_0"]
    assert persuader["cell"]["row"]["identity"]["decode"] == "score"
    assert stats["decisions"] == 4 * persuader["episode"]["rounds"] and stats["fallbacks"] == 0
    assert persuader["episode"]["tom"][0] is not None  # its guesses of desire, belief and intention, scored
    persuadee = _pairing("tom/Persuasion-TwoSeat-v1", 2, "bayes", "llm_persuadee", tmp_path)
    mine = persuadee["episode"]["policy_stats"]["persuadee_0"]
    assert mine["decisions"] >= 2 and mine["fallbacks"] == 0 and mine["parse_failures"] == 0


def test_the_scoring_mediator_predicts_and_moves_on_the_real_model():
    from benchmarks.runner_envs import make_env
    from policies.negotiation.llm.mediator import LLMMediator
    from tom_envs.negotiation.scenario import resolve_scenario
    from wrappers import AECTextObservation

    scenario = resolve_scenario("hopkins_hmo")
    env = AECTextObservation(make_env("tom/Negotiation-v1", conflict_mode="general", turn_budget=20))
    mediator = LLMMediator(_backend(), scenario, variant="social", decode="score")
    env.reset(seed=0)
    mediator.reset(0)
    acted = 0
    for _agent in env.agent_iter(max_iter=200):
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        stances = mediator.predict(obs, info)["stances"]
        assert stances.shape == (3, 5) and (stances >= 0).all()  # every cell predicted: a label always wins
        env.step(mediator.act(obs, info))
        acted += 1
        if acted == 2:
            break
    assert acted == 2 and mediator.stats["fallbacks"] == 0 and mediator.stats["parse_failures"] == 0
