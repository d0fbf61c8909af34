"""Issue 28: blocked options, the outcome keys of an episode (agreed option per topic, deals, utilities,
Nash product, Pareto efficiency), the release's remaining metrics, and the bad inputs that are named errors."""

from __future__ import annotations

import itertools
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from tom_envs.negotiation.consensus import ConsensusTracker
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv
from tom_envs.negotiation.errors import ScenarioError
from tom_envs.negotiation.metrics import release_drops, release_mediator_frequency, release_success_rate
from tom_envs.negotiation.outcomes import OUTCOME_KEYS
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, Scenario, load_builtin

RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")
CASES = ("hmo", "flagship", "river", "ias", "williams", "francis")
SAMPLE = Path(__file__).parent / "data" / "negotiation" / "cases" / "harbour.json"


def _scripted_seats(env: NegotiationEnv, script) -> dict:
    """Play an env whose party seats follow ``script(seat, turn) -> action`` (the seats take turns: the
    one whose index is the turn modulo the parties is the most motivated); the mediator passes."""
    env.reset(seed=0)
    while not all(env.terminations.values()):
        seat = env.agent_selection
        if seat == MEDIATOR:
            env.step(0)
            continue
        action = dict(script(seat, env.turn))
        action["motivation"] = 1.0 if int(seat.split("_")[1]) == env.turn % env.n else 0.1
        env.step(action)
    return env.infos[MEDIATOR]["episode"]


def _blocked_topic(sc: Scenario) -> tuple[int, int, list[int]]:
    """A topic, an option some party blocks on it, and the parties blocking it."""
    for k, t in enumerate(sc.topics):
        for o in range(len(t.options)):
            who = [i for i in range(len(sc.parties)) if sc.blocks(i, k, o)]
            if who:
                return k, o, who
    raise AssertionError("no blocked option")


def test_agreeing_on_a_blocked_option_is_never_full_consensus():
    sc = load_builtin("hopkins_hmo")
    k, o, blockers = _blocked_topic(sc)
    t = sc.topics[k]
    env = NegotiationEnv(scenario=sc, party_seats="all", turn_budget=20, conflict_mode="general")
    ep = _scripted_seats(env, lambda seat, turn: {"topic": t.name, "option": t.options[o].label})
    assert all(row[t.name] == t.options[o].label for row in ep["final_attitudes"].values())
    assert ep["agreed"][t.name] == t.options[o].label  # they all hold it ...
    assert ep["topic_consensus"][t.name][-1] < 0.5  # ... and it is not consensus for the blocking party
    assert ep["blocked_agreements"] == 1 and ep["blocked_agreement_topics"] == [t.name]
    assert ep["deals"] == 0 and ep["full_deal"] is False
    flagged = {(s["party"], s["topic"], s["option"]) for s in ep["blocked_stances"]}
    assert flagged == {(sc.parties[i].name, t.name, t.options[o].label) for i in blockers}
    # the flag is end-of-episode only: no public event says that a stance is on a blocked option
    assert not any("blocked" in e for e in env.events)


def test_the_same_agreement_on_an_acceptable_option_is_a_deal_with_utilities():
    sc = load_builtin("hopkins_hmo")
    k, o, _ = _blocked_topic(sc)
    t = sc.topics[k]
    ok = next(x for x in range(len(t.options)) if not any(sc.blocks(i, k, x) for i in range(len(sc.parties))))
    env = NegotiationEnv(scenario=sc, party_seats="all", turn_budget=20, conflict_mode="general")
    ep = _scripted_seats(env, lambda seat, turn: {"topic": t.name, "option": t.options[ok].label})
    assert ep["topic_consensus"][t.name][-1] == 1.0 and ep["blocked_agreements"] == 0 and ep["deals"] >= 1
    for i, p in enumerate(sc.parties):  # utility: mean over topics of the deal's acceptability, 0 without a deal
        deals = [
            (kk, tt.labels.index(ep["agreed"][tt.name]))
            for kk, tt in enumerate(sc.topics)
            if ep["agreed"][tt.name] is not None
        ]
        want = sum(sc.acceptability(i, kk)[oo] for kk, oo in deals) / len(sc.topics)
        assert ep["utilities"][p.name] == pytest.approx(want)
    assert ep["nash_product"] == pytest.approx(math.prod(ep["utilities"].values()))
    assert 0 < ep["nash_product_max"] <= 1 and ep["pareto_efficient"] is False  # 4 topics without a deal


def test_a_full_deal_on_the_best_package_is_pareto_efficient():
    sc = load_builtin("hopkins_hmo")
    acc = [[sc.acceptability(i, k) for k in range(len(sc.topics))] for i in range(len(sc.parties))]
    # the package with the largest Nash product is Pareto efficient
    import itertools

    best = max(
        itertools.product(*[range(len(t.options)) for t in sc.topics]),
        key=lambda pk: math.prod(sum(acc[i][k][o] for k, o in enumerate(pk)) for i in range(len(sc.parties))),
    )
    tracker = ConsensusTracker(sc)
    for i in range(len(sc.parties)):
        for k, o in enumerate(best):
            tracker.update(i, k, o)
    from tom_envs.negotiation.outcomes import OutcomeScorer

    out = OutcomeScorer(tracker._acc, tracker.blocked).score(tracker.attitudes, sc.topics)
    assert out["full_deal"] and out["deals"] == len(sc.topics) and out["pareto_efficient"] is True
    assert out["nash_product"] == pytest.approx(out["nash_product_max"])


def test_a_custom_agreement_cannot_score_a_blocked_agreement_as_full():
    sc = load_builtin("hopkins_hmo")
    k, o, blockers = _blocked_topic(sc)
    tracker = ConsensusTracker(sc, agreement=lambda *args: 1.0)
    for i in range(len(sc.parties)):
        tracker.update(i, k, o)
    tracker.record()
    assert tracker.topic_history[-1][k] < 1.0 and tracker.blocked_agreement(k)


def test_scripted_runs_have_every_outcome_key_and_no_blocked_agreement():
    env = NegotiationEnv(scenario="ias", conflict_mode="accommodating")
    ep = _scripted_seats(env, None)
    assert set(OUTCOME_KEYS) <= set(ep)
    assert ep["blocked_agreements"] == 0 and ep["blocked_stances"] == []  # scripted parties never state a block
    assert set(ep) >= {"success_rate", "success_rate_max", "mediator_frequency", "drops"}
    json.dumps(ep)  # JSON-serialisable


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
@pytest.mark.parametrize("case", CASES)
def test_release_cases_score_an_agreement_on_a_blocked_option_below_full(case):
    sc = Scenario.from_promediate(Path(RELEASE) / "cases" / f"{case}.json")
    k, o, _ = _blocked_topic(sc)
    t = sc.topics[k]
    env = NegotiationEnv(scenario=sc, party_seats="all", turn_budget=20)
    ep = _scripted_seats(env, lambda seat, turn: {"topic": t.name, "option": t.options[o].label})
    assert ep["blocked_agreements"] >= 1 and ep["topic_consensus"][t.name][-1] < 1.0
    assert ep["agreed"][t.name] == t.options[o].label and t.name in ep["blocked_agreement_topics"]


# ---------------------------------------------------------------------- achievable outcomes (issue 41)
#: what each released case allows (docs/negotiation.md): full deal possible, the best Nash product over the
#: achievable outcomes, the best over every package of listed options (the reference before issue 41), and the
#: distinct utility vectors of achievable outcomes that are Pareto-efficient among the achievable / among the listed
RELEASED_ACHIEVABLE = {
    "flagship": (True, 0.100878, 0.100878, 19, 14),
    "francis": (False, 0.0175821, 0.113932, 2, 0),
    "hmo": (True, 0.224, 0.224, 20, 18),
    "ias": (False, 0.0895182, 0.225966, 4, 0),
    "river": (False, 8.57339e-05, 0.0699271, 2, 0),
    "williams": (True, 0.0605429, 0.125929, 1, 1),
}


def _dominates(v, u) -> bool:
    return all(a >= b - 1e-12 for a, b in zip(v, u)) and any(a > b + 1e-12 for a, b in zip(v, u))


def _brute_force(sc: Scenario) -> dict:
    """Independent enumeration: per topic, each option no party blocks or no deal (None); utilities as the
    module docstring defines them; the Nash best, the Pareto frontier, and the best over every listed package."""
    n, m = len(sc.parties), len(sc.topics)
    acc = [[sc.acceptability(i, k) for k in range(m)] for i in range(n)]
    dealable = [
        [o for o in range(len(t.options)) if not any(sc.blocks(i, k, o) for i in range(n))]
        for k, t in enumerate(sc.topics)
    ]

    def util(pk):
        return tuple(sum(acc[i][k][o] for k, o in enumerate(pk) if o is not None) / m for i in range(n))

    outcomes = {pk: util(pk) for pk in itertools.product(*[[None, *d] for d in dealable])}
    listed = [util(pk) for pk in itertools.product(*[range(len(t.options)) for t in sc.topics])]
    vectors = set(outcomes.values())
    return {
        "full_deal_possible": all(dealable),
        "outcomes": outcomes,
        "nash_max": max(math.prod(u) for u in outcomes.values()),
        "listed_nash_max": max(math.prod(u) for u in listed),
        "frontier": {pk for pk, u in outcomes.items() if not any(_dominates(v, u) for v in vectors)},
        "efficient_vectors": sum(not any(_dominates(v, u) for v in vectors) for u in vectors),
        "efficient_vectors_listed": sum(not any(_dominates(v, u) for v in listed) for u in vectors),
    }


def _attitudes(sc: Scenario, package) -> np.ndarray:
    """Final attitudes reaching ``package``: everyone holds the deal's option; on a no-deal topic the parties differ."""
    n = len(sc.parties)
    return np.array([[o if o is not None else (0 if i == 0 else 1) for o in package] for i in range(n)])


def _check_against_brute_force(sc: Scenario) -> dict:
    from tom_envs.negotiation.outcomes import OutcomeScorer

    bf = _brute_force(sc)
    scorer = OutcomeScorer.from_scenario(sc)
    got = scorer.achievable()
    assert got["full_deal_possible"] == bf["full_deal_possible"] and got["outcomes"] == len(bf["outcomes"])
    assert got["nash_product_max"] == pytest.approx(bf["nash_max"], rel=1e-12)
    assert bf["frontier"]  # some achievable outcome is Pareto-efficient: pareto_rate is not 0 by construction
    for pk, u in bf["outcomes"].items():  # every achievable outcome, reached: efficient exactly on the frontier
        out = scorer.score(_attitudes(sc, pk), sc.topics)
        assert out["utilities"] == pytest.approx(list(u), abs=1e-12)
        assert out["nash_product_max"] == got["nash_product_max"]
        assert out["pareto_efficient"] is (pk in bf["frontier"]), pk
        assert out["full_deal"] is all(o is not None for o in pk) and out["outcome_reference"] == "achievable"
    best = max(bf["outcomes"], key=lambda pk: math.prod(bf["outcomes"][pk]))
    assert scorer.score(_attitudes(sc, best), sc.topics)["nash_product"] == pytest.approx(got["nash_product_max"])
    return bf


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_nash_best_and_pareto_frontier_are_those_of_the_achievable_outcomes(name):
    bf = _check_against_brute_force(load_builtin(name))
    assert bf["full_deal_possible"]  # our scenarios leave every topic an option nobody blocks


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
@pytest.mark.parametrize("case", CASES)
def test_release_cases_achievable_outcomes_equal_enumeration_and_the_documented_figures(case):
    sc = Scenario.from_promediate(Path(RELEASE) / "cases" / f"{case}.json")
    bf = _check_against_brute_force(sc)
    full, nash, listed, efficient, efficient_listed = RELEASED_ACHIEVABLE[case]
    assert bf["full_deal_possible"] is full
    assert bf["nash_max"] == pytest.approx(nash, rel=1e-5) and bf["listed_nash_max"] == pytest.approx(listed, rel=1e-5)
    assert bf["efficient_vectors"] == efficient and bf["efficient_vectors_listed"] == efficient_listed
    # an episode's summary carries the case's figures
    ep = _scripted_seats(NegotiationEnv(scenario=sc, conflict_mode="general"), None)
    assert ep["full_deal_possible"] is full and ep["nash_product_max"] == pytest.approx(nash, rel=1e-5)


def test_the_table_reads_efficiency_only_from_records_judged_over_achievable_outcomes():
    from benchmarks.negotiation.table import achievable_lines, format_table, outcome_row, summarise

    ep = _scripted_seats(NegotiationEnv(scenario="ias", conflict_mode="general"), None)
    old = {k: v for k, v in ep.items() if k not in ("full_deal_possible", "outcome_reference")}  # a pre-issue-41 record
    row = outcome_row([ep, old], cases=["ias.json@x", "ias.json@x"])
    assert row["outcomes_stale"] == 1 and row["pareto_rate"] == float(ep["pareto_efficient"])
    assert row["nash_share"] == pytest.approx(ep["nash_product"] / ep["nash_product_max"])
    assert row["achievable"] == {"ias.json@x": {"full_deal_possible": True, "nash_product_max": ep["nash_product_max"]}}
    assert row["deals"] == ep["deals"]  # the keys that need no reference read every record
    stale = outcome_row([old])
    assert stale["nash_share"] is None and stale["pareto_rate"] is None and stale["achievable"] is None
    assert stale["outcomes_stale"] == 1 and stale["deals"] == ep["deals"]
    table = format_table([summarise("medium", "general", "none", [{"episode": ep, "scenario": "ias"}])])
    assert "ias: full deal possible, best achievable Nash product" in table
    assert "left out of those columns" in "\n".join(achievable_lines([stale]))


# ---------------------------------------------------------------------- the release's remaining metrics
def test_success_rate_frequency_and_drops_follow_the_release():
    topics = [[0.95] * 12, [0.5] * 11 + [0.95], [0.1] * 5]  # the last one is too short: left out
    assert release_success_rate(topics) == 0.5
    assert release_success_rate(topics, use_max=True) == 1.0
    assert release_success_rate([]) == 0.0
    assert release_mediator_frequency(["Mediator", "Ana", "Mediator", "Ben"]) == 0.25  # (2 - 1) / 4
    series = [1.0] * 10 + [0.8, 0.8, 0.8]
    assert release_drops(series) == [10, 11, 12]


# ---------------------------------------------------------------------- bad input
def _hmo_dict() -> dict:
    return load_builtin("hopkins_hmo").model_dump()


def test_a_derived_turn_budget_above_the_cap_is_an_error():
    d = _hmo_dict()
    d["parties"] = [dict(d["parties"][0], name=f"P{i}") for i in range(40)]
    d["turns_per_party_topic"] = 64  # 64 x 40 x 5 = 12,800 turns
    with pytest.raises(ScenarioError, match="12800 turns, above the cap"):
        Scenario.from_dict(d)


def test_utilities_whose_range_overflows_are_an_error():
    d = _hmo_dict()
    t = d["topics"][0]["name"]
    pref = d["parties"][0]["preferences"][t]
    pref["utilities"] = {lab: (1e308 if x == 0 else -1e308) for x, lab in enumerate(pref["ranking"])}
    with pytest.raises(ScenarioError, match="too wide for a float"):
        Scenario.from_dict(d)


def _case(tmp_path, edit) -> Path:
    case = json.loads(SAMPLE.read_text(encoding="utf-8"))
    edit(case)
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def _set_nan(case):
    name = next(iter(case["config"]))
    case["config"][name]["im_threshold"] = float("nan")


@pytest.mark.parametrize(
    "edit, message",
    [
        (_set_nan, "im_threshold must be a finite number"),
        (lambda c: c.pop("config"), r"missing keys \['config'\]"),
        (lambda c: c.__setitem__("config", [1]), "'config' must map"),
        (lambda c: c.__setitem__("names", {}), "'names' is empty"),
    ],
)
def test_bad_promediate_cases_are_named_errors(tmp_path, edit, message):
    with pytest.raises(ScenarioError, match=message):
        Scenario.from_promediate(_case(tmp_path, edit))


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
def test_a_topics_list_that_drops_topics_is_an_error(tmp_path):
    case = json.loads((Path(RELEASE) / "cases" / "hmo.json").read_text(encoding="utf-8"))
    case["topics"] = case["topics"][:1]
    path = tmp_path / "hmo.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    with pytest.raises(ScenarioError, match="'topics' names 1 topic"):
        Scenario.from_promediate(path)


def test_a_json_number_in_an_llm_reply_is_an_option_label():
    from policies.llm.errors import ReplyError
    from policies.negotiation.llm.common import reply_option

    sc = load_builtin("ias")
    k = next(k for k, t in enumerate(sc.topics) if t.labels[:2] == ["1", "2"])
    assert reply_option(sc, k, 1, "thought") == 0  # label "1", not index 1 (label "2")
    assert reply_option(sc, k, "2", "thought") == 1
    with pytest.raises(ReplyError, match="unknown option"):
        reply_option(sc, k, 9, "thought")
    with pytest.raises(ReplyError, match="a label"):
        reply_option(sc, k, True, "thought")


def test_outcome_of_scripted_episode_is_deterministic():
    a = _scripted_seats(NegotiationEnv(scenario="flagship", conflict_mode="competing"), None)
    b = _scripted_seats(NegotiationEnv(scenario="flagship", conflict_mode="competing"), None)
    assert {k: a[k] for k in OUTCOME_KEYS} == {k: b[k] for k in OUTCOME_KEYS}
    assert np.isfinite(a["nash_product"])


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
def test_json_rows_on_the_six_release_cases_carry_the_outcome_keys(tmp_path, capsys, monkeypatch):
    from benchmarks.__main__ import main
    from benchmarks.negotiation.table import OUTCOME_ROW

    monkeypatch.setenv("TOM_ENVS_PROMEDIATE_CASES", str(Path(RELEASE) / "cases"))
    assert (
        main(
            [
                "negotiation",
                "--scenarios",
                "release",
                "--policy",
                "none,social",
                "--mode",
                "hard",
                "--episodes",
                "1",
                "--out",
                str(tmp_path),
                "--format",
                "json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(set(OUTCOME_ROW) <= set(r) and r["blocked_agreements"] == 0 for r in rows)
    assert all(r["episodes"] == 6 for r in rows)
    records = [
        json.loads(line)
        for path in sorted((tmp_path / "negotiation").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert len(records) == 12 and all(set(OUTCOME_KEYS) <= set(rec["episode"]) for rec in records)
    for r in rows:  # each row says what every case allows, keyed by the case file
        got = {
            name.split(".json@")[0]: (a["full_deal_possible"], a["nash_product_max"])
            for name, a in r["achievable"].items()
        }
        assert got == {c: (v[0], pytest.approx(v[1], rel=1e-5)) for c, v in RELEASED_ACHIEVABLE.items()}
        assert r["full_deal_possible_rate"] == pytest.approx(0.5) and r["outcomes_stale"] is None


# ---------------------------------------------------------------------- silent ignores, LLM-path reporting
def test_lockstep_that_no_cell_can_use_is_an_error_and_a_partial_one_a_warning(tmp_path):
    from benchmarks.negotiation.benchmark import NegotiationRun, evaluate
    from tom_envs.negotiation.errors import NegotiationConfigError, NegotiationWarning

    run = NegotiationRun(
        levels=("hard",), mediators=("social",), scenarios=("ias",), runs=1, out=tmp_path, progress=False, lockstep=4
    )
    with pytest.raises(NegotiationConfigError, match="applies to the LLM mediators"):
        evaluate(run)
    from dataclasses import replace

    from benchmarks.negotiation.benchmark import _check_lockstep

    with pytest.raises(NegotiationConfigError, match="LLM parties play one episode at a time"):
        _check_lockstep(replace(run, parties="llm"))

    with pytest.warns(NegotiationWarning, match="the mediators social play one episode at a time"):
        _check_lockstep(replace(run, mediators=("social", "llm-social")))


def test_a_component_that_only_fell_back_is_flagged_in_the_table():
    from benchmarks.negotiation.table import format_table, summarise

    rec = {
        "episode": _scripted_seats(NegotiationEnv(scenario="ias", conflict_mode="general"), None),
        "llm_stats": {"parties": {"decisions": 40, "fallbacks": 40}, "mediator": {"decisions": 10, "fallbacks": 1}},
    }
    row = summarise("medium", "general", "llm-social", [rec])
    assert row["llm_fallbacks_by"]["parties"] == {"decisions": 40, "fallbacks": 40} and row["llm_all_random"] == [
        "parties"
    ]
    text = format_table([row])
    assert "(mediator, extractor, judge, parties)" in text and "WARNING: every decision was a random fallback" in text


def test_the_llm_agreement_judge_needs_a_backend():
    from benchmarks.negotiation.benchmark import NegotiationRun
    from tom_envs.negotiation.errors import NegotiationConfigError

    with pytest.raises(NegotiationConfigError, match="agreement 'llm' needs an LLM backend"):
        NegotiationRun(agreement="llm").needs_llm()
    with pytest.raises(NegotiationConfigError, match="unknown agreement"):
        NegotiationRun(agreement="gpt")


def test_a_huge_outcome_space_is_not_enumerated():
    """3 options on 60 topics: 4**60 achievable outcomes, past int64 (np.prod wrapped to a small number and
    the enumeration ran out of memory); the efficiency keys are None instead."""
    from tom_envs.negotiation.outcomes import OutcomeScorer

    scorer = OutcomeScorer([[[0.2, 0.5, 1.0]] * 60] * 2, [[frozenset()] * 60] * 2)
    assert scorer.packages() is None and scorer.nash_product_max() is None
    assert scorer.achievable()["outcomes"] == 4**60
