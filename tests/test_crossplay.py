"""``tom-envs crossplay`` (docs/crossplay.md): every ordered pairing of a population on the two-seat matrix ids,
resumable records, literal ToM both ways, OpenSkill ratings, the rank agreement of two seed halves, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.crossplay import CrossplayError, CrossplayRun, run, tasks
from benchmarks.crossplay_stats import rate, seed_halves, spearman
from tests.rating_oracle import period_ratings

IPD = "tom/IPD-Parallel-v0"


def _quiet(*args, **kwargs):
    pass


def _records(out: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((out / "crossplay").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


@pytest.fixture(autouse=True)
def pinned_entropy(monkeypatch):
    monkeypatch.setenv("TOM_ENVS_POLICY_ENTROPY", "12345")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """IPD, no learner, 4 episodes of 12 rounds per pairing."""
    out = tmp_path_factory.mktemp("crossplay")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOM_ENVS_POLICY_ENTROPY", "12345")  # the policies' seeds: pinned, so a second run replays them
        result = run(CrossplayRun((IPD,), episodes=4, horizon=12, learner_steps=0), out, log=_quiet)
    return out, result


def test_the_matrix_parallel_ids_cross_play_with_six_agents_or_more():
    from benchmarks.crossplay import Population

    found = tasks()
    assert {IPD, "tom/RPS-Parallel-v0", "tom/IBS-Parallel-v0"} <= set(found)
    for env_id in ("tom/IPD-Parallel-v0", "tom/RPS-Parallel-v0", "tom/IBS-Parallel-v0"):
        agents = found[env_id].population(env_id, Population(10, Path("unused"), 0))
        assert len(agents) >= 6 and {"scripted", "tabular"} <= {a.kind for a in agents}


def test_every_ordered_pairing_is_played_for_every_episode(played):
    out, result = played
    agents = [r["agent"] for r in result["ratings"]]
    assert len(agents) == 6
    assert {(p["row"], p["col"]) for p in result["pairings"]} == {(a, b) for a in agents for b in agents}
    assert all(p["episodes"] == 4 and p["seeds"] == [0, 1, 2, 3] for p in result["pairings"])
    recs = _records(out)
    assert len(recs) == 36 * 4 and all(len(r["steps"]) == 12 for r in recs)


def test_a_rerun_plays_only_the_missing_episodes(tmp_path):
    config = CrossplayRun(("tom/RPS-Parallel-v0",), episodes=2, horizon=6, learner_steps=0)
    run(config, tmp_path, log=_quiet)
    before = {p: p.read_text() for p in (tmp_path / "crossplay").glob("*.jsonl")}
    run(config, tmp_path, log=_quiet)
    assert {p: p.read_text() for p in before} == before  # nothing played again
    run(CrossplayRun(("tom/RPS-Parallel-v0",), episodes=3, horizon=6, learner_steps=0), tmp_path, log=_quiet)
    for path, text in before.items():
        now = path.read_text()
        assert now.startswith(text) and len(now.splitlines()) == 3  # one more episode appended, none replayed


def test_the_same_seed_gives_the_same_rows(played, tmp_path):
    _, result = played
    again = run(CrossplayRun((IPD,), episodes=4, horizon=12, learner_steps=0), tmp_path, log=_quiet)
    assert again == result


def test_literal_tom_in_both_directions_is_recomputed_from_the_records(played):
    out, result = played
    recs = _records(out)
    for p in result["pairings"]:
        mine = [r for r in recs if (r["cell"]["row"]["name"], r["cell"]["col"]["name"]) == (p["row"], p["col"])]
        for seat, side in ((0, "row"), (1, "col")):
            per_episode = []
            for r in mine:  # each round: [action_0, action_1, prediction_0, prediction_1]
                scored = [(s[2 + seat], s[1 - seat]) for s in r["steps"] if s[2 + seat] is not None]
                per_episode.append(100.0 * sum(a == b for a, b in scored) / len(scored) if scored else None)
                assert r["episode"]["tom"][seat] == per_episode[-1]
            known = [v for v in per_episode if v is not None]
            assert p[f"{side}_tom"] == (round(sum(known) / len(known), 2) if known else None)
        # who predicts: the tabular agent's count model; scripted partners make no predictions
        assert (p["row_tom"] is None) == (p["row"] != "tabular") and (p["col_tom"] is None) == (p["col"] != "tabular")


def test_the_steps_are_what_the_agents_played():
    """tit_for_tat (row) against always_defect (column): C then D forever; the column always defects."""
    from benchmarks.crossplay import PairCell, Population, cells, tasks as declared

    task = declared()[IPD]
    agents = {a.name: a for a in task.population(IPD, Population(5, Path("unused"), 0))}
    cell = next(
        c
        for c in cells(IPD, task, list(agents.values()), 5)
        if (c.row.name, c.col.name) == ("tit_for_tat", "always_defect")
    )
    assert isinstance(cell, PairCell)
    result = cell.play(cell.make_env(), cell.make_policy(), seed=3)
    assert [s[:2] for s in result.steps] == [[0, 1], [1, 1], [1, 1], [1, 1], [1, 1]]
    assert result.summary["returns"] == [20.0, 30.0] and result.summary["tom"] == [None, None]


def test_ratings_are_openskill_plackett_luce_over_the_episodes(played):
    """One rating period per seed: each match of a seed rated by OpenSkill from the ratings at the seed's start,
    an agent's mu deltas summed and its sigma^2 factors multiplied (tau^2 added once per period)."""
    out, result = played
    recs = _records(out)
    # IPD's returns are integers: their negatives are OpenSkill ranks
    expected = period_ratings(recs, lambda r: [-r["episode"]["returns"][0], -r["episode"]["returns"][1]])
    got = rate(recs)
    assert set(got) == set(expected)
    for name, (mu, sigma) in expected.items():
        assert got[name] == (pytest.approx(mu, abs=1e-6), pytest.approx(sigma, abs=1e-6))
    rows = {r["agent"]: r for r in result["ratings"]}
    assert all(r["sigma"] < 25 / 3 for r in rows.values())  # every agent's uncertainty shrank from the prior
    by_mu = sorted(rows.values(), key=lambda r: -r["mu"])
    assert [r["rank"] for r in by_mu] == [1 + sum(o["mu"] > r["mu"] for o in by_mu) for r in by_mu]  # ties share
    assert rows["always_defect"]["rank"] == 1  # it never scores less than its partner in IPD


def test_spearman_is_the_rank_correlation_with_average_ranks():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486832980505138)  # scipy.stats.spearmanr
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1], [2]) is None


def test_the_rank_agreement_compares_ratings_of_two_disjoint_seed_halves(played):
    out, result = played
    recs = _records(out)
    first, second = seed_halves(recs)
    assert first == [0, 1] and second == [2, 3]
    (agree,) = result["agreement"]
    a = rate([r for r in recs if r["seed"] in first])
    b = rate([r for r in recs if r["seed"] in second])
    names = list(agree["mu_a"])
    assert agree["spearman"] == round(spearman([a[n][0] for n in names], [b[n][0] for n in names]), 4)
    assert -1.0 <= agree["spearman"] <= 1.0 and agree["agents"] == 6


def test_an_id_without_a_crossplay_task_is_a_named_error(tmp_path):
    with pytest.raises(CrossplayError, match="no crossplay task plays tom/IPD-v0"):
        run(CrossplayRun(("tom/IPD-v0",), episodes=1, learner_steps=0), tmp_path, log=_quiet)


def test_the_report_draws_heatmaps_and_the_rating_table(played, tmp_path):
    from benchmarks.report import build_report

    out, result = played
    report = build_report(out, tmp_path / "report")
    text = report["markdown"].read_text()
    assert "Crossplay (tom-envs crossplay)" in text and "OpenSkill (Plackett-Luce) ratings" in text
    spearman_text = f"Spearman rank correlation {result['agreement'][0]['spearman']:.3f}"
    assert spearman_text in text
    pngs = sorted(p.name for p in (tmp_path / "report" / "crossplay").glob("*.png"))
    assert pngs == ["plane.png", "tom-IPD-Parallel-v0_outcome.png", "tom-IPD-Parallel-v0_tom.png"]
    audit = json.loads((tmp_path / "report" / "crossplay" / "tom-IPD-Parallel-v0_outcome.figure.json").read_text())
    pair = next(p for p in result["pairings"] if (p["row"], p["col"]) == ("tit_for_tat", "always_defect"))
    i, j = audit["agents"].index("tit_for_tat"), audit["agents"].index("always_defect")
    assert audit["values"][i][j] == pair["row_return"]


def test_the_command_prints_json_rows(tmp_path, capsys):
    from benchmarks.__main__ import main

    command = "crossplay --env tom/IBS-Parallel-v0 --episodes 2 --horizon 5 --learner-steps 0"
    args = [*command.split(), "--out", str(tmp_path)]
    assert main([*args, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows["pairings"]) == 36 and len(rows["ratings"]) == 6 and rows["agreement"][0]["seeds_a"] == [0]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "rank agreement" in text and "tabular" in text


def test_the_command_refuses_what_does_not_apply(tmp_path, capsys):
    from benchmarks.__main__ import main

    for flag, why in (("--plot", "tom-envs report"), ("--lockstep", "one by one"), ("--policy", "whole population")):
        with pytest.raises(SystemExit) as exc:
            main(["crossplay", flag, "2"])
        assert exc.value.code == 2 and why in capsys.readouterr().err


@pytest.mark.slow
def test_the_ppo_learner_trains_once_per_seat_and_plays_both_seats(tmp_path):
    config = CrossplayRun(("tom/RPS-Parallel-v0",), episodes=2, horizon=6, learner_steps=512, learner_envs=2)
    result = run(config, tmp_path, log=_quiet)
    models = sorted((tmp_path / "crossplay" / "learners" / "rl" / "models").glob("ppo_*.zip"))
    assert len(models) == 2
    assert {"ppo"} <= {p["row"] for p in result["pairings"]} and len(result["ratings"]) == 7
    ppo = [p for p in result["pairings"] if "ppo" in (p["row"], p["col"])]
    assert len(ppo) == 13 and all(p["row_tom"] is None for p in ppo if p["row"] == "ppo")
    stamp = {p: p.stat().st_mtime_ns for p in models}
    assert run(config, tmp_path, log=_quiet) == result  # the models are loaded, the records reused
    assert {p: p.stat().st_mtime_ns for p in models} == stamp


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--backend", "openai"], "--backend does nothing without --model"),
        (["--strategy", "qa"], "--strategy does nothing without --model"),
        (["--learner-steps", "0", "--learner-envs", "2"], "--learner-envs does nothing with --learner-steps 0"),
    ],
)
def test_options_that_would_change_nothing_are_named_errors(tmp_path, capsys, argv, message):
    from benchmarks.__main__ import main

    assert main(["crossplay", "--env", IPD, "--out", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "crossplay").exists()
