"""Crossplay records of one id played at two horizons (a long committed run, and a short one with an LLM agent) are
two populations in the report, never one: a rating or a rank agreement over episodes of different lengths would
pool matches that are not the same game (docs/crossplay.md)."""

from __future__ import annotations

import json

import pytest

from benchmarks.crossplay import CrossplayRun, run

IBS = "tom/IBS-Parallel-v0"


def _quiet(*args, **kwargs) -> None:
    pass


@pytest.fixture(autouse=True)
def pinned_entropy(monkeypatch):
    monkeypatch.setenv("TOM_ENVS_POLICY_ENTROPY", "12345")


def test_an_id_played_at_two_horizons_is_two_populations_in_the_report(tmp_path):
    from benchmarks.report import build_report

    out = tmp_path / "results"
    short = run(CrossplayRun((IBS,), episodes=2, horizon=3, learner_steps=0), out, log=_quiet)
    long = run(CrossplayRun((IBS,), episodes=2, horizon=5, learner_steps=0), out, log=_quiet)
    assert short["agreement"][0]["env_id"] == long["agreement"][0]["env_id"] == IBS  # a run plays one horizon
    report = build_report(out, tmp_path / "report")
    text = report["markdown"].read_text()
    assert f"{IBS} (horizon 3)" in text and f"{IBS} (horizon 5)" in text
    folder = tmp_path / "report" / "crossplay"
    for horizon, result in ((3, short), (5, long)):
        audit = json.loads((folder / f"tom-IBS-Parallel-v0--horizon-{horizon}-_outcome.figure.json").read_text())
        pair = next(p for p in result["pairings"] if (p["row"], p["col"]) == ("tabular", "always_fight"))
        i, j = audit["agents"].index("tabular"), audit["agents"].index("always_fight")
        assert audit["values"][i][j] == pair["row_return"]  # each heatmap is its own run's rows, not a pool


def test_an_id_played_at_one_horizon_keeps_its_name(tmp_path):
    from benchmarks.report import build_report

    out = tmp_path / "results"
    run(CrossplayRun((IBS,), episodes=2, horizon=3, learner_steps=0), out, log=_quiet)
    text = build_report(out, tmp_path / "report")["markdown"].read_text()
    assert (
        "(horizon 3)" not in text and (tmp_path / "report" / "crossplay" / "tom-IBS-Parallel-v0_outcome.png").exists()
    )


def test_the_seed_halves_are_the_seeds_every_pairing_has_played(tmp_path):
    """An agent that joins with fewer episodes (an LLM agent beside a committed population) leaves the seeds it
    lacks out of both halves: in a half without its matches it would keep its prior rating."""
    from benchmarks.crossplay_stats import seed_halves

    out = tmp_path / "results"
    recs = run(CrossplayRun((IBS,), episodes=6, horizon=3, learner_steps=0), out, log=_quiet)
    assert recs["agreement"][0]["seeds_a"] == [0, 1, 2] and recs["agreement"][0]["seeds_b"] == [3, 4, 5]
    records = [
        json.loads(line) for f in sorted((out / "crossplay").glob("*.jsonl")) for line in f.read_text().splitlines()
    ]
    fewer = [r for r in records if not (r["cell"]["row"]["name"] == "tabular" and int(r["seed"]) >= 4)]
    assert seed_halves(fewer) == ([0, 1], [2, 3])
    assert seed_halves(records) == ([0, 1, 2], [3, 4, 5])


def test_an_agent_under_two_identities_is_two_agents_in_the_report(tmp_path):
    """A learner retrained under a new model key (its records beside the old model's) is never rated as one
    agent with the old model: the report names each identity apart."""
    from benchmarks.crossplay_stats import agent_names
    from benchmarks.report.crossplay import _distinct_agents

    out = tmp_path / "results"
    run(CrossplayRun((IBS,), episodes=2, horizon=3, learner_steps=0), out, log=_quiet)
    records = [
        json.loads(line) for f in sorted((out / "crossplay").glob("*.jsonl")) for line in f.read_text().splitlines()
    ]
    assert _distinct_agents(records) is records  # one identity per name: as they are
    retrained = []
    for rec in records:
        if rec["cell"]["row"]["name"] == "tabular" and rec["seed"] == 1:
            rec = {**rec, "cell": {**rec["cell"], "row": {**rec["cell"]["row"], "identity": {"horizon": 99}}}}
        retrained.append(rec)
    names = agent_names(_distinct_agents(retrained))
    tabulars = [n for n in names if n.startswith("tabular")]
    assert len(tabulars) == 2 and all(n.startswith("tabular [") for n in tabulars) and "tabular" not in names
    assert retrained[0]["cell"]["row"]["name"] in ("always_fight", "tabular")  # the records read are not renamed


def test_an_agent_with_fewer_episodes_is_left_out_of_the_rank_agreement(tmp_path):
    """An agent that played fewer seeds than the rest (an LLM agent beside a committed population) is named in
    ``left_out`` and the halves are the rest's whole seed range; the report says who was left out."""
    from benchmarks.crossplay_stats import agreement_row, under_sampled

    out = tmp_path / "results"
    run(CrossplayRun((IBS,), episodes=6, horizon=3, learner_steps=0), out, log=_quiet)
    records = [
        json.loads(line) for f in sorted((out / "crossplay").glob("*.jsonl")) for line in f.read_text().splitlines()
    ]
    in_pairing = lambda r, name: name in (r["cell"]["row"]["name"], r["cell"]["col"]["name"])  # noqa: E731
    fewer = [r for r in records if not (in_pairing(r, "tabular") and int(r["seed"]) >= 2)]
    assert under_sampled(fewer) == {"tabular": 2} and under_sampled(records) == {}
    whole, cut = agreement_row(IBS, records), agreement_row(IBS, fewer)
    assert cut["left_out"] == {"tabular": 2} and "left_out" not in whole
    assert (cut["seeds_a"], cut["seeds_b"]) == ([0, 1, 2], [3, 4, 5]) and cut["agents"] == whole["agents"] - 1
    assert "tabular" not in cut["mu_a"] and set(cut["mu_a"]) == set(whole["mu_a"]) - {"tabular"}
