"""``tom-envs crossplay`` on the seated two-seat ids (docs/crossplay.md): two-seat persuasion (persuaders x
persuadees) and negotiation (mediators x parties) -- every pairing played, resumable records, determinism, ToM
in each seat that predicts, OpenSkill ratings from the match scores, per-seat ranks and agreement, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.crossplay import CrossplayError, CrossplayRun, Population, run, tasks
from benchmarks.crossplay_stats import rate, seed_halves, spearman
from tests.rating_oracle import period_ratings

PERSUASION, NEGOTIATION = "tom/Persuasion-TwoSeat-v1", "tom/Negotiation-v1"
PERSUADERS = ["random", "echo", "echo-memory", "open-loop", "tracking", "bayes"]
PERSONAS = [
    "persona_procrastinator",
    "persona_skeptic",
    "persona_cautious",
    "persona_thrifty",
    "persona_conformist",
    "persona_busy",
]
MEDIATORS = ["none", "blind", "generic", "social"]
PARTIES = ["parties_accommodating", "parties_avoiding", "parties_general", "parties_competing"]


def _quiet(*args, **kwargs):
    pass


def _records(out: Path, env_id: str) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((out / "crossplay").glob(f"{env_id.replace('/', '-')}_*.jsonl"))
        for line in path.read_text().splitlines()
    ]


@pytest.fixture(autouse=True)
def pinned_entropy(monkeypatch):
    monkeypatch.setenv("TOM_ENVS_POLICY_ENTROPY", "2024")


#: Short episodes: 2 persuader lines (v1's exact planning is quick there), negotiation's least turn budget.
HORIZONS = {PERSUASION: 2, NEGOTIATION: 20}


def _config(env_id: str, episodes: int = 2) -> CrossplayRun:
    return CrossplayRun((env_id,), episodes=episodes, horizon=HORIZONS[env_id], learner_steps=0)


def _both(out: Path) -> dict:
    """Both ids played into ``out``, their rows merged as one run's."""
    merged: dict = {"pairings": [], "ratings": [], "agreement": []}
    for env_id in (PERSUASION, NEGOTIATION):
        for key, rows in run(_config(env_id), out, log=_quiet).items():
            merged[key] += rows
    return merged


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Both ids, no learner, no LLM, 2 episodes per pairing (:data:`HORIZONS`)."""
    out = tmp_path_factory.mktemp("crossplay_families")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOM_ENVS_POLICY_ENTROPY", "2024")  # the policies' seeds: pinned, so a second run replays them
        result = _both(out)
    return out, result


def test_the_families_declare_their_seated_populations():
    found = tasks()
    assert {PERSUASION, NEGOTIATION} <= set(found)
    pers = found[PERSUASION].population(PERSUASION, Population(4, Path("unused"), 0))
    assert [a.name for a in pers if a.seat == "persuader_0"] == PERSUADERS
    assert [a.name for a in pers if a.seat == "persuadee_0"] == PERSONAS
    neg = found[NEGOTIATION].population(NEGOTIATION, Population(30, Path("unused"), 0))
    assert [a.name for a in neg if a.seat == "mediator_0"] == MEDIATORS
    assert [a.name for a in neg if a.seat == "parties"] == PARTIES


def test_every_persuader_meets_every_persuadee_and_every_mediator_every_party_agent(played):
    out, result = played
    for env_id, rows, cols in ((PERSUASION, PERSUADERS, PERSONAS), (NEGOTIATION, MEDIATORS, PARTIES)):
        pairs = [p for p in result["pairings"] if p["env_id"] == env_id]
        assert [(p["row"], p["col"]) for p in pairs] == [(r, c) for r in rows for c in cols]
        assert all(p["episodes"] == 2 and p["seeds"] == [0, 1] for p in pairs)
        assert len(_records(out, env_id)) == len(rows) * len(cols) * 2


def test_a_persona_agent_is_the_persona_the_episode_plays(played):
    out, _ = played
    from tom_envs.persuasion.scenarios import FAMILIES

    for rec in _records(out, PERSUASION):
        persona = rec["cell"]["col"]["identity"]["persona"]
        assert rec["episode"]["persona"] == persona
        family = next(f for f in FAMILIES if f.name == rec["episode"]["family"])
        assert persona in {p.name for p in family.personas}


def test_literal_tom_is_kept_for_each_seat_that_predicts(played):
    out, result = played
    pers = [p for p in result["pairings"] if p["env_id"] == PERSUASION]
    # the scripted persuaders predict desire, belief and intention; the simulated persons predict the next principle
    assert all(p["row_tom"] is not None and p["col_tom"] is not None for p in pers)
    for rec in _records(out, PERSUASION):
        by_target = [v for v in rec["episode"]["tom_by_target"].values() if v is not None]
        assert rec["episode"]["tom"][0] == pytest.approx(sum(by_target) / len(by_target))
    neg = [p for p in result["pairings"] if p["env_id"] == NEGOTIATION]
    assert all((p["row_tom"] is not None) == (p["row"] == "social") for p in neg)  # only social predicts stances
    assert all(p["col_tom"] is None for p in neg)  # the scripted parties predict nothing


def test_match_scores_follow_each_game(played):
    out, _ = played
    for rec in _records(out, PERSUASION):
        success = rec["episode"]["outcome"]["success"]
        assert rec["episode"]["scores"] == ([1.0, 0.0] if success else [0.0, 1.0])
        assert rec["episode"]["returns"][0] == float(success)
    for rec in _records(out, NEGOTIATION):
        gain, par = rec["episode"]["scores"]
        assert gain == rec["episode"]["returns"][0] and par == rec["episode"]["no_mediator_gain"]
        if rec["cell"]["row"]["name"] == "none":
            assert gain == par  # a mediator that never intervenes is the parties' own gain: a tie
    nones = {
        (r["seed"], r["cell"]["col"]["name"]): r["episode"]["scores"][0]
        for r in _records(out, NEGOTIATION)
        if r["cell"]["row"]["name"] == "none"
    }
    for rec in _records(out, NEGOTIATION):  # the par is the none mediator's gain on the same seed and parties
        assert rec["episode"]["no_mediator_gain"] == nones[(rec["seed"], rec["cell"]["col"]["name"])]


def _match_ranks(record: dict) -> list[int]:
    """OpenSkill ranks of a seated match from its scores: 0 wins, equal scores tie."""
    s0, s1 = record["episode"]["scores"]
    return [0, 0] if s0 == s1 else ([0, 1] if s0 > s1 else [1, 0])


def test_ratings_are_openskill_over_the_match_scores_each_agent_in_its_seat(played):
    out, result = played
    for env_id in (PERSUASION, NEGOTIATION):
        recs = _records(out, env_id)
        expected = period_ratings(recs, _match_ranks)
        got = rate(recs)
        assert set(got) == set(expected)
        for name, (mu, sigma) in expected.items():
            assert got[name] == (pytest.approx(mu, abs=1e-6), pytest.approx(sigma, abs=1e-6))
        rows = [r for r in result["ratings"] if r["env_id"] == env_id]
        for seat in {r["seat"] for r in rows}:
            mine = sorted((r for r in rows if r["seat"] == seat), key=lambda r: -r["mu"])
            assert [r["seat_rank"] for r in mine] == [1 + sum(o["mu"] > r["mu"] for o in mine) for r in mine]
    pers = {r["agent"]: r for r in result["ratings"] if r["env_id"] == PERSUASION}
    assert pers["bayes"]["mu"] > pers["random"]["mu"]  # the exact Bayes persuader persuades more often


def test_the_rank_agreement_is_given_within_each_seat(played):
    out, result = played
    for env_id in (PERSUASION, NEGOTIATION):
        recs = _records(out, env_id)
        agree = next(a for a in result["agreement"] if a["env_id"] == env_id)
        first, second = seed_halves(recs)
        a, b = rate([r for r in recs if r["seed"] in first]), rate([r for r in recs if r["seed"] in second])
        seat_of = {r["cell"][s]["name"]: r["cell"][s]["seat"] for r in recs for s in ("row", "col")}
        for seat, rho in agree["spearman_by_seat"].items():
            names = [n for n in agree["mu_a"] if seat_of[n] == seat]
            want = spearman([a[n][0] for n in names], [b[n][0] for n in names])
            assert rho == (None if want is None else round(want, 4))
        # the win shares: each agent's matches won (a tie half), counted directly from the scores
        for seat, rho in agree["win_share_spearman_by_seat"].items():
            names = [n for n in agree["mu_a"] if seat_of[n] == seat]
            halves = []
            for seeds in (first, second):
                won = {n: [] for n in names}
                for r in recs:
                    if r["seed"] in seeds:
                        s0, s1 = r["episode"]["scores"]
                        share = 0.5 if s0 == s1 else float(s0 > s1)
                        for side, got in (("row", share), ("col", 1.0 - share)):
                            if r["cell"][side]["name"] in won:
                                won[r["cell"][side]["name"]].append(got)
                halves.append([sum(won[n]) / len(won[n]) for n in names])
            want = spearman(*halves)
            assert rho == (None if want is None else round(want, 4))


def test_a_rerun_resumes_and_the_same_seed_gives_the_same_rows(played, tmp_path):
    out, result = played
    before = {p: p.read_text() for p in (out / "crossplay").glob("*.jsonl")}
    assert _both(out) == result
    assert {p: p.read_text() for p in before} == before  # nothing played again
    again = run(_config(NEGOTIATION), tmp_path, log=_quiet)
    assert again == {k: [r for r in rows if r["env_id"] == NEGOTIATION] for k, rows in result.items()}  # same seeds
    config = _config(NEGOTIATION, episodes=3)
    run(config, out, log=_quiet)
    for path, text in before.items():
        if path.name.startswith("tom-Negotiation-v1"):
            assert path.read_text().startswith(text) and len(path.read_text().splitlines()) == 3


@pytest.mark.slow  # six matplotlib figures: 10-30 s on the shared 2-core machine
def test_the_report_shows_each_seated_family(played, tmp_path):
    from benchmarks.report import build_report

    out, result = played
    report = build_report(out, tmp_path / "report")
    text = report["markdown"].read_text()
    assert "each agent ranked in its own seat" in text
    for env_id in (PERSUASION, NEGOTIATION):
        agree = next(a for a in result["agreement"] if a["env_id"] == env_id)
        assert f"within a seat: {next(iter(agree['spearman_by_seat']))}" in text
    folder = tmp_path / "report" / "crossplay"
    audit = json.loads((folder / "tom-Persuasion-TwoSeat-v1_outcome.figure.json").read_text())
    assert sorted(audit["agents"]) == sorted(PERSUADERS) and sorted(audit["cols"]) == sorted(PERSONAS)
    pair = next(p for p in result["pairings"] if (p["row"], p["col"]) == ("bayes", "persona_busy"))
    assert audit["values"][audit["agents"].index("bayes")][audit["cols"].index("persona_busy")] == pair["row_return"]
    tom = json.loads((folder / "tom-Negotiation-v1_tom.figure.json").read_text())
    assert sorted(tom["agents"]) == sorted(MEDIATORS) and sorted(tom["cols"]) == sorted(PARTIES)
    for name, values in zip(tom["agents"], tom["values"]):  # only the social mediator predicts the stances
        assert [v is not None for v in values] == [name == "social"] * 4
    assert (folder / "plane.png").exists()


def test_a_persuasion_learner_past_its_training_horizon_is_a_named_error(tmp_path):
    with pytest.raises(CrossplayError, match="trains at horizon 4"):
        run(CrossplayRun((PERSUASION,), episodes=1, horizon=5, learner_steps=64), tmp_path, log=_quiet)


def test_a_population_mixing_seated_and_unseated_agents_is_a_named_error():
    from dataclasses import replace

    from benchmarks.crossplay import cells

    task = tasks()[PERSUASION]
    agents = task.population(PERSUASION, Population(4, Path("unused"), 0))
    with pytest.raises(CrossplayError, match="name no seat"):
        cells(PERSUASION, task, [*agents, replace(agents[0], name="loose", seat=None)], 4)


def test_strategy_is_refused_where_no_llm_agent_takes_it(tmp_path, capsys):
    from benchmarks.__main__ import main

    argv = [
        "crossplay",
        "--env",
        PERSUASION,
        "--backend",
        "openai",
        "--model",
        "m",
        "--strategy",
        "qa",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 2
    assert "--strategy does nothing" in capsys.readouterr().err and not (tmp_path / "crossplay").exists()


@pytest.mark.slow
def test_the_learners_train_once_and_play_their_seat(tmp_path):
    config = CrossplayRun((PERSUASION, NEGOTIATION), episodes=2, horizon=20, learner_steps=256, learner_envs=2)
    with pytest.raises(CrossplayError, match="trains at horizon 4"):  # one horizon for both ids: too long for it
        run(config, tmp_path, log=_quiet)
    config = CrossplayRun((PERSUASION,), episodes=2, learner_steps=256, learner_envs=2)
    result = run(config, tmp_path, log=_quiet)
    result_n = run(
        CrossplayRun((NEGOTIATION,), episodes=2, horizon=20, learner_steps=256, learner_envs=2), tmp_path, log=_quiet
    )
    for key in result:
        result[key] += result_n[key]
    models = sorted((tmp_path / "crossplay" / "learners" / "rl" / "models").glob("ppo_*.zip"))
    assert len(models) == 2
    for env_id, cols in ((PERSUASION, PERSONAS), (NEGOTIATION, PARTIES)):
        ppo = [p for p in result["pairings"] if p["env_id"] == env_id and p["row"] == "ppo"]
        assert [p["col"] for p in ppo] == cols and all(p["row_tom"] is None for p in ppo)
    stamp = {p: p.stat().st_mtime_ns for p in models}
    assert run(config, tmp_path, log=_quiet) == {
        k: [r for r in rows if r["env_id"] == PERSUASION] for k, rows in result.items()
    }  # the model loaded, records reused
    assert {p: p.stat().st_mtime_ns for p in models} == stamp


def test_a_horizon_out_of_a_task_range_is_a_named_error(tmp_path):
    with pytest.raises(CrossplayError, match="tom/Negotiation-v1 plays at least 20 turns"):
        run(CrossplayRun((NEGOTIATION,), episodes=1, horizon=5, learner_steps=0), tmp_path, log=_quiet)
    assert not (tmp_path / "crossplay").exists() or not list((tmp_path / "crossplay").glob("*.jsonl"))


def test_a_model_based_persuader_takes_a_reply_its_model_rules_out_as_unheard():
    """An LLM persuadee may say what no persona would: the filter counts it and goes on from the prior."""
    import numpy as np

    from policies.persuasion.scripted import BayesPersuader
    from tom_envs.persuasion.mind import model_for, obs_parts
    from tom_envs.persuasion.scenarios import family_named

    model = model_for(family_named("health"))
    impossible = next(o for o in range(model.opening.shape[1]) if (model.initial * model.opening[:, o]).sum() == 0)
    tone, topic = obs_parts(impossible)
    policy = BayesPersuader()
    policy.reset(0)
    info = {"turn": 0, "horizon": 4, "family": "health"}
    action = policy.act(np.array([tone, topic, 7, 0, 4]), info)
    assert 0 <= action < 6 and policy.ruled_out == 1
    assert np.allclose(policy.belief, model.initial / model.initial.sum())
