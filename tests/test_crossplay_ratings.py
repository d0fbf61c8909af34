"""Crossplay ratings in rating periods (benchmarks/crossplay_stats.py, docs/crossplay.md "Rows, ratings, rank
agreement"): one period per seed, every match of it rated from the ratings at its start, so a rating depends on no
agent's name and on no order of a seed's records; and the rank agreement with the under-sampled agents back in
(``with_all``)."""

from __future__ import annotations

import random

import pytest

from benchmarks.crossplay_stats import (
    WITH_ALL_SEEDS,
    agreement_row,
    halves_agreement,
    rate,
    ranked,
    rating_rows,
    render,
    summarise,
)

#: How strong each agent is: the one with the larger value wins a match, equal values tie. ``twin_a`` and
#: ``twin_b`` play alike; ``coin`` wins or loses by the seed.
STRENGTH = {"strong": 4.0, "twin_a": 2.0, "twin_b": 2.0, "weak": 0.0}


def _record(seed: int, row: str, col: str, r0: float, r1: float) -> dict:
    return {
        "seed": seed,
        "cell": {"row": {"name": row, "kind": "scripted"}, "col": {"name": col, "kind": "scripted"}},
        "episode": {"returns": [r0, r1], "tom": [None, None]},
    }


def _score(name: str, seed: int) -> float:
    if name == "coin":  # beats the twins on even seeds, loses to them on odd ones
        return 3.0 if seed % 2 == 0 else 1.0
    return STRENGTH[name]


def _round_robin(names: list[str], seeds: range) -> list[dict]:
    """Every ordered pairing of ``names`` (self-play included) for every seed."""
    return [_record(s, a, b, _score(a, s), _score(b, s)) for s in seeds for a in names for b in names]


POP = ["strong", "twin_a", "coin", "twin_b", "weak"]


def test_identical_agents_get_identical_ratings_and_share_a_rank():
    records = _round_robin(POP, range(8))
    got = rate(records)
    assert got["twin_a"] == got["twin_b"]  # exactly: not one name ahead of the other
    assert got["strong"][0] > got["twin_a"][0] > got["weak"][0]  # a strong agent still outranks a weak one
    rows = {r["agent"]: r for r in rating_rows("x", records)}
    assert rows["twin_a"]["rank"] == rows["twin_b"]["rank"] and rows["strong"]["rank"] == 1
    assert rows["weak"]["rank"] == 5  # after a tie the next rank skips: 1, 2, 2, ... (competition ranks)


def test_renaming_the_agents_permutes_the_ratings_exactly():
    records = _round_robin(POP, range(8))
    before = rate(records)
    for perm in (["weak", "twin_b", "strong", "coin", "twin_a"], ["z", "a", "m", "b", "y"]):
        name = dict(zip(POP, perm))
        renamed = [
            {
                **r,
                "cell": {
                    "row": {**r["cell"]["row"], "name": name[r["cell"]["row"]["name"]]},
                    "col": {**r["cell"]["col"], "name": name[r["cell"]["col"]["name"]]},
                },
            }
            for r in records
        ]
        after = rate(renamed)
        assert {old: after[new] for old, new in name.items()} == before


def test_the_order_of_the_records_changes_nothing():
    records = _round_robin(POP, range(8))
    before = rate(records, POP)
    for seed in range(5):
        shuffled = list(records)
        random.Random(seed).shuffle(shuffled)  # across seeds too: the periods are the seeds, in seed order
        assert rate(shuffled, POP) == before


def test_a_period_rates_every_match_from_the_ratings_at_its_start():
    """The period's combination, written out for one seed from OpenSkill's own two-player updates: mu deltas
    summed, sigma^2 = (sigma^2 + tau^2) times the product of each match's factor."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    records = [_record(0, "a", "b", 1, 0), _record(0, "a", "c", 0, 0), _record(0, "c", "b", 0, 1)]
    start = model.rating()
    deltas: dict[str, float] = {}
    factors: dict[str, float] = {}
    for r in records:
        row, col = r["cell"]["row"]["name"], r["cell"]["col"]["name"]
        r0, r1 = r["episode"]["returns"]
        ranks = [0, 0] if r0 == r1 else ([0, 1] if r0 > r1 else [1, 0])
        (new_row,), (new_col,) = model.rate([[model.rating()], [model.rating()]], ranks=ranks)
        for name, new in ((row, new_row), (col, new_col)):
            deltas[name] = deltas.get(name, 0.0) + new.mu - start.mu
            factors[name] = factors.get(name, 1.0) * new.sigma**2 / (start.sigma**2 + model.tau**2)
    got = rate(records)
    for name in "abc":
        want_sigma = ((start.sigma**2 + model.tau**2) * factors[name]) ** 0.5
        assert got[name] == pytest.approx((start.mu + deltas[name], want_sigma), abs=1e-8)
    assert got["a"][0] > 25 > got["c"][0]  # a won one and tied one; c tied one and lost one


def test_an_agent_with_no_match_keeps_the_prior():
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    got = rate([_record(0, "a", "a", 1, 0), _record(0, "a", "b", 1, 0)], ["a", "b", "idle"])
    assert got["idle"] == (model.mu, model.sigma)  # self-play and absence leave a rating alone


def test_ranked_gives_equal_values_one_rank():
    assert ranked({"a": 3.0, "b": 5.0, "c": 3.0, "d": 1.0}) == {"b": 1, "a": 2, "c": 2, "d": 4}


def _with_llm(population_seeds: int, llm_seeds: int) -> list[dict]:
    """The :data:`POP` round robin for ``population_seeds`` seeds and an agent ``llm`` (as strong as ``coin``) that
    played every pairing of its own for ``llm_seeds`` seeds only."""
    records = _round_robin(POP, range(population_seeds))
    for s in range(llm_seeds):
        for other in POP:
            mine, theirs = _score("coin", s + 1), _score(other, s)
            records += [_record(s, "llm", other, mine, theirs), _record(s, other, "llm", theirs, mine)]
    return records


def test_with_all_is_the_agreement_of_every_agent_on_the_seeds_they_all_share():
    records = _with_llm(40, 20)
    row = agreement_row("x", records)
    assert row["left_out"] == {"llm": 20} and row["agents"] == 5
    assert (row["seeds_a"], row["seeds_b"]) == (list(range(20)), list(range(20, 40)))
    every = row["with_all"]
    assert every["seeds"] == 20 and every["agents"] == 6 and "left_out" not in every
    assert (every["seeds_a"], every["seeds_b"]) == (list(range(10)), list(range(10, 20)))
    want = halves_agreement(records, [*POP, "llm"], list(range(10)), list(range(10, 20)))
    assert {k: every[k] for k in want} == want
    assert set(every["mu_a"]) == {*POP, "llm"} and every["spearman"] is not None
    text = render(summarise({"x": records}))
    assert "left out (fewer episodes): llm (20 seeds)" in text and "6 agents, 20 shared seeds" in text


def test_with_all_needs_enough_shared_seeds_and_names_who_stays_out():
    few = agreement_row("x", _with_llm(40, WITH_ALL_SEEDS - 2))["with_all"]
    assert few == {
        "seeds": WITH_ALL_SEEDS - 2,
        "seeds_a": list(range(WITH_ALL_SEEDS // 2 - 1)),
        "seeds_b": list(range(WITH_ALL_SEEDS // 2 - 1, WITH_ALL_SEEDS - 2)),
        "agents": 6,
        "spearman": None,
    }
    # a second late agent with 4 seeds stays out; the one with 20 comes back
    records = _with_llm(40, 20)
    for s in range(4):
        records += [_record(s, "late", "weak", 1, 0), _record(s, "weak", "late", 0, 1)]
    row = agreement_row("x", records)
    assert row["left_out"] == {"llm": 20, "late": 4}
    every = row["with_all"]
    assert every["left_out"] == {"late": 4} and every["agents"] == 6 and every["seeds"] == 20
    assert "late" not in every["mu_a"] and "llm" in every["mu_a"]
    assert "with_all" not in agreement_row("x", _round_robin(POP, range(4)))  # nobody left out: no second figure


def test_the_report_states_both_agreements():
    from benchmarks.report.crossplay import agreement_table, with_all_text

    row = agreement_row("x", _with_llm(40, 20))
    text = with_all_text(row["with_all"])
    assert text.startswith("With them back in, on the 20 seeds") and "seeds 0-9 against 10-19" in text
    assert f"Spearman {row['with_all']['spearman']:.3f}" in text
    short = agreement_row("x", _with_llm(40, 4))
    assert "not computed" in with_all_text(short["with_all"]) and "share 4 seeds (it needs 10)" in with_all_text(
        short["with_all"]
    )
    table = agreement_table([row, agreement_row("y", _round_robin(POP, range(4)))])
    first, second = (r["cells"] for r in table["rows"])
    assert first[:4] == ["x", "5", "0-19 / 20-39", f"{row['spearman']:.3f}"] and first[6] == "llm"
    assert first[7:10] == ["6", "0-9 / 10-19", f"{row['with_all']['spearman']:.3f}"]
    assert second[6:] == ["-", "-", "-", "-", "-"]  # nobody left out: no second figure
    (few,) = (r["cells"] for r in agreement_table([short])["rows"])
    assert few[7:10] == ["6", "4 shared", "n/a"]
