"""LLM parties, mediators and judges for the negotiation env: end to end through the real env on a
scripted loopback OpenAI-compatible server, and parse failures / fallbacks on the tiny vLLM engine."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from benchmarks.runner_aec import play_aec
from policies.llm import OpenAIBackend
from policies.llm.errors import TextObservationNeeded
from policies.matrix.llm.strategies import InvalidPolicyConfig, ResampleLimitReached
from policies.negotiation.llm import (
    AGREEMENT_DIMENSIONS,
    MEDIATION_STRATEGIES,
    LLMAgreementJudge,
    LLMAttitudeExtractor,
    LLMMediator,
    LLMMIJudge,
    LLMParty,
    MediationStrategy,
    PartyTeam,
    extract_json,
)
from tom_envs.negotiation.consensus import ProposedOption
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv
from tom_envs.negotiation.scenario import resolve_scenario
from wrappers import AECTextObservation, AECToMRecorder

from .scripted_server import scripted_backend

SCENARIO = resolve_scenario("hopkins_hmo")


def scripted_reply(content: str, seed: int) -> str:
    """Well-formed JSON for each stage, varying with the request's seed (so seeds matter)."""
    sc = SCENARIO
    r = (seed or 0) ^ zlib.crc32(content[-200:].encode())
    if "Form up to" in content and "private thoughts" in content:  # the release loop's thoughts
        k = r % len(sc.topics)
        t = sc.topics[k]
        return json.dumps(
            {
                "thoughts": [
                    {
                        "content": f"{t.name} matters to us.",
                        "topic": t.name,
                        "option": t.options[(r // 7 + x) % len(t.options)].label,
                        "stimuli": ["MEM#0"],
                    }
                    for x in range(2)
                ]
            }
        )
    if "how strongly {name} wants to voice".split("{")[0] in content and "Rate from 1.0 to 5.0" in content:
        return json.dumps({"reasoning": "It matters.", "rating": round(1.0 + (r % 41) / 10, 1)})
    if "You speak next. Your thought:" in content:  # the release loop's articulation: words from the topic
        about = content.split("It is about ", 1)[1].split("\n", 1)[0]
        return json.dumps(
            {
                "act": "propose",
                "tone": ("firm", "neutral")[r % 2],
                "utterance": f"I think this is fair ({r % 100}). On {about}",
            }
        )
    if "Who speaks next?" in content:
        names = [p.name for p in sc.parties] + ["anyone"]
        return json.dumps({"next": names[r % len(names)]})
    if "Think privately" in content:
        k = r % len(sc.topics)
        t = sc.topics[k]
        return "Thinking.\n" + json.dumps(
            {"thought": "We should settle this.", "topic": t.name, "option": t.options[(r // 7) % len(t.options)].label}
        )
    if "How strongly do you want to speak" in content:
        return json.dumps({"score": 1 + r % 5})
    if "Say it as you would" in content:
        return (
            "```json\n"
            + json.dumps(
                {
                    "act": "propose",
                    "tone": ("firm", "neutral")[r % 2],
                    "utterance": f"I think this is fair ({r % 100}).",
                }
            )
            + "\n```"
        )
    if "estimate what each party privately prefers" in content:
        return json.dumps(
            {"predictions": {p.name: {t.name: t.options[0].label for t in sc.topics} for p in sc.parties}}
        )
    if '{"intervene": false} to stay silent' in content:
        if r % 3:
            return json.dumps({"intervene": False})
        return json.dumps(
            {
                "intervene": True,
                "strategy": "problem_solving",
                "topic": sc.topics[r % len(sc.topics)].name,
                "target": sc.parties[r % len(sc.parties)].name,
                "utterance": "Could we try a package?",
            }
        )
    if "Rate how far these two parties agree" in content:
        return json.dumps({d: 1 + (r + x) % 5 for x, d in enumerate(AGREEMENT_DIMENSIONS)})
    if "Score the intervention" in content:
        return json.dumps({"perceptual": 4, "emotional": None, "cognitive": 3, "communicative": None})
    if "which option does this statement support" in content:
        return json.dumps(
            {"attitudes": {t.name: (t.options[1].label if k == 0 else None) for k, t in enumerate(sc.topics)}}
        )
    return "I do not know."


@pytest.fixture
def scripted():
    with scripted_backend(scripted_reply) as pair:
        yield pair


def episode(env: AECTextObservation, parties: dict[str, LLMParty], mediator: LLMMediator, seed: int) -> dict:
    """One episode played by the runner, the LLM parties as one team; the env's episode summary with the
    recorder's literal-ToM score when the env is wrapped in one (as the benchmark records it)."""
    from benchmarks.negotiation.benchmark import episode_record

    return episode_record(env, play_aec(env, {**PartyTeam(env, parties).seats(), MEDIATOR: mediator}, seed))


def play(
    backend: OpenAIBackend, seed: int, variant: str = "social"
) -> tuple[dict, dict, LLMMediator, LLMAgreementJudge]:
    agreement = LLMAgreementJudge(backend, fallback="raise")
    mi = LLMMIJudge(backend, SCENARIO, fallback="raise")
    env = AECTextObservation(
        AECToMRecorder(
            NegotiationEnv(
                scenario=SCENARIO,
                party_seats="all",
                turn_budget=20,
                agreement=agreement,
                mi_judge=mi,
                conflict_mode="general",
            )
        )
    )
    mi.bind(env)
    parties = {a: LLMParty(backend, SCENARIO, fallback="raise") for a in env.possible_agents if a != MEDIATOR}
    mediator = LLMMediator(backend, SCENARIO, variant=variant, fallback="raise")
    summary = episode(env, parties, mediator, seed=seed)
    return summary, parties, mediator, agreement


def test_episode_end_to_end_with_llm_parties_and_mediator(scripted):
    _, backend = scripted
    summary, parties, mediator, agreement = play(backend, seed=3)
    assert summary["turns"] == 20 and len(summary["consensus"]) == 21
    assert isinstance(summary["cc"], float)
    assert summary["interventions"], "the scripted mediator intervenes on some turns"
    for iv in summary["interventions"]:
        assert iv["mi"]["perceptual"] == 4.0 and iv["mi"]["cognitive"] == 3.0 and iv["mi"]["mean"] == 3.5
    assert summary["mi_judge"] == "llm-mi" and summary["mi_mean"] == 3.5
    assert summary["tom_predictions"] > 0 and summary["tom_accuracy"] is not None
    assert all(0.0 <= c <= 1.0 for c in summary["consensus"])
    assert agreement.cache and agreement.stats["fallbacks"] == 0
    for p in parties.values():
        assert p.stats["parse_failures"] == 0 and p.stats["fallbacks"] == 0
    assert mediator.stats["parse_failures"] == 0
    json.dumps(summary)  # still serialisable


def test_llm_party_text_reaches_the_transcript(scripted):
    _, backend = scripted
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20))
    parties = {a: LLMParty(backend, SCENARIO) for a in env.possible_agents if a != MEDIATOR}
    episode(env, parties, LLMMediator(backend, SCENARIO, variant="generic"), seed=1)
    party_events = [e for e in env.events if e.get("party") is not None]
    assert party_events and all(e["text"].startswith("I think this is fair") for e in party_events)


def test_same_seed_same_episode_different_seed_differs(scripted):
    _, backend = scripted
    a = play(backend, seed=5)[0]
    b = play(backend, seed=5)[0]
    c = play(backend, seed=6)[0]
    assert a == b
    assert a["consensus"] != c["consensus"] or a["interventions"] != c["interventions"]


def test_one_backend_call_per_stage_for_all_parties(scripted):
    server, backend = scripted
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20))
    env.reset(seed=0)
    seats = [a for a in env.agents if a != MEDIATOR]
    parties = [LLMParty(backend, SCENARIO, allow_pass=False) for _ in seats]
    for i, p in enumerate(parties):
        p.reset(i)
    before = backend.stats.calls
    actions = LLMParty.act_parties(parties, [env.observe(a) for a in seats])
    assert backend.stats.calls - before == 3  # thought, motivation, articulation
    # only the party that can take the floor (most motivated, ties: lowest index) puts its line into words
    assert parties[0].caller.calls == [("thought", 3), ("motivation", 3), ("articulation", 1)]
    assert len(server.requests) == 7
    top = max(range(3), key=lambda i: (actions[i]["motivation"], -i))
    assert [p.last["articulation"] is not None for p in parties] == [i == top for i in range(3)]
    for a, act in zip(seats, actions):
        env.step(act)
    assert all(0.0 <= act["motivation"] <= 1.0 for act in actions)


def test_reasks_count_failures_then_succeed(scripted):
    server, backend = scripted
    server.garbage = 2  # the first two replies are not JSON
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20))
    env.reset(seed=0)
    seats = [a for a in env.agents if a != MEDIATOR]
    parties = [LLMParty(backend, SCENARIO, max_resamples=1, fallback="raise", allow_pass=False) for _ in seats]
    LLMParty.act_parties(parties, [env.observe(a) for a in seats])
    assert sum(p.stats["parse_failures"] for p in parties) == 2
    assert sum(p.stats["fallbacks"] for p in parties) == 0
    assert parties[0].caller.calls[:2] == [("thought", 3), ("thought", 2)]  # one re-ask round for both


def test_extractor_and_judges_parse(scripted):
    _, backend = scripted
    ex = LLMAttitudeExtractor(backend, SCENARIO)
    got = ex.extract_many([(0, "We want option b on the first topic."), ("party_1", "Nothing to add.")])
    assert got[0][0] == 1 and all(v is None for k, v in got[0].items() if k)
    judge = LLMAgreementJudge(backend)
    attitudes = np.array(
        [[SCENARIO.top_option(i, k) for k in range(len(SCENARIO.topics))] for i in range(len(SCENARIO.parties))]
    )
    n = judge.prefetch(SCENARIO, attitudes)
    assert n > 0 and judge.stats["backend_calls"] == 1
    v = judge(SCENARIO, 1, 0, 0, int(attitudes[1, 0]), int(attitudes[0, 0]))  # symmetric cache hit
    assert 0.0 <= v <= 1.0 and judge.stats["backend_calls"] == 1


def test_a_new_mediation_strategy_is_one_class_and_one_table_entry(scripted, monkeypatch):
    class Quiet(MediationStrategy):
        name = "quiet"

        def instructions(self, scenario, prediction):
            return "Speak only when a party is hostile."

    monkeypatch.setitem(MEDIATION_STRATEGIES, "quiet", Quiet)
    server, backend = scripted
    mediator = LLMMediator(backend, SCENARIO, variant="quiet")
    mediator.reset(0)
    text, info = "You mediate a short negotiation.", {"state": {"turn": 0}}
    decision = mediator.act(text, info)
    assert mediator.predict(text, info) is None and "prediction" not in decision
    assert isinstance(decision["intervene"], bool) and mediator.stats["decisions"] == 1
    assert "Speak only when a party is hostile." in server.requests[-1]["messages"][-1]["content"]


def test_llm_seats_read_the_text_observation_and_name_the_wrapper_otherwise(scripted):
    server, backend = scripted
    env = NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20)
    env.reset(seed=0)
    text_env = AECTextObservation(env)
    assert text_env.observe("party_0") == env.text("party_0") and "text" not in env.infos["party_0"]
    assert text_env.observation_space("mediator_0").contains(text_env.observe("mediator_0"))
    party, mediator = LLMParty(backend, SCENARIO), LLMMediator(backend, SCENARIO, variant="generic")
    for policy, seat in ((party, "party_0"), (mediator, MEDIATOR)):
        policy.reset(0)
        with pytest.raises(TextObservationNeeded, match="AECTextObservation"):
            policy.act(env.observe(seat), env.infos[seat])
    assert server.requests == []  # refused before asking the model


def test_llm_parties_refuse_lockstep_across_episodes_by_name(scripted):
    server, backend = scripted
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20))
    parties = {a: LLMParty(backend, SCENARIO) for a in env.possible_agents if a != MEDIATOR}
    for policy in (LLMParty(backend, SCENARIO), PartyTeam(env, parties)):
        with pytest.raises(InvalidPolicyConfig, match="play_aec, not play_aec_lockstep"):
            policy.reset_batch([0, 1])
    assert server.requests == []


@pytest.mark.parametrize("variant", ["social", "generic"])
def test_llm_mediator_in_lockstep_equals_one_by_one_with_one_call_per_stage(scripted, variant):
    from benchmarks.runner_aec import play_aec_lockstep

    server, backend = scripted
    seeds = [0, 1, 2]

    def env() -> AECTextObservation:
        return AECTextObservation(NegotiationEnv(scenario=SCENARIO, turn_budget=20, conflict_mode="general"))

    one_by_one = LLMMediator(backend, SCENARIO, variant=variant, fallback="random")
    singles = []
    for seed in seeds:
        result = play_aec(env(), one_by_one, seed)
        singles.append((result.info["episode"], dict(one_by_one.stats)))
    asked_one_by_one = len(server.requests)
    lock = LLMMediator(backend, SCENARIO, variant=variant, fallback="random")
    results = play_aec_lockstep([env() for _ in seeds], lock, seeds)
    assert [(r.info["episode"], s) for r, s in zip(results, lock.episode_stats())] == singles
    assert len(server.requests) - asked_one_by_one == asked_one_by_one  # the same requests, batched
    stages = {stage for stage, _ in lock.caller.calls}
    assert stages == ({"predict", "decide"} if variant == "social" else {"decide"})
    assert max(size for _, size in lock.caller.calls) == len(seeds)  # one call served every episode


def test_extract_json_and_config_errors():
    assert extract_json('x {"a": 1} y {"b": {"c": 2}}') == {"b": {"c": 2}}
    with pytest.raises(ValueError):
        extract_json("no json")
    with pytest.raises(InvalidPolicyConfig):
        LLMMediator(object(), SCENARIO, variant="clever")  # type: ignore[arg-type]
    with pytest.raises(InvalidPolicyConfig):
        LLMParty(object(), SCENARIO, fallback="default")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- real tiny engine

SHORT_TEXT = "You are a party in a short negotiation."
SHORT_INFO = {"state": {"turn": 0}}
FAST = {"max_resamples": 1, "max_tokens": 8, "temperature": 1.0}


def test_tiny_model_garbage_is_counted_and_flagged(vllm_backend):
    parties = [LLMParty(vllm_backend, SCENARIO, fallback="random", allow_pass=False, **FAST) for _ in range(3)]
    for i, p in enumerate(parties):
        p.reset(i)
    before = vllm_backend.stats.calls
    actions = LLMParty.act_parties(parties, [SHORT_TEXT] * 3)
    # 3 stages x (first try + 1 re-ask), each one call for all parties
    assert vllm_backend.stats.calls - before == 6, parties[0].caller.calls
    top = max(range(3), key=lambda i: (actions[i]["motivation"], -i))  # the one party whose line is worded
    for i, (p, act) in enumerate(zip(parties, actions)):
        worded = i == top
        assert p.stats["parse_failures"] == (6 if worded else 4) and p.stats["fallbacks"] == (3 if worded else 2)
        assert p.last["fallback"] == {"thought": True, "motivation": True, "articulation": True if worded else None}
        env = NegotiationEnv(scenario=SCENARIO, party_seats="all", turn_budget=20)
        env.reset(seed=0)
        env.step(act)  # a valid structured action even when drawn at random
    mediator = LLMMediator(vllm_backend, SCENARIO, variant="social", fallback="random", **FAST)
    mediator.reset(0)
    decision = mediator.act(SHORT_TEXT, SHORT_INFO)
    assert mediator.last["fallback"] == {"predict": True, "decide": True}
    assert mediator.stats["fallbacks"] == 2 and mediator.stats["parse_failures"] == 4
    stances = mediator.predict(SHORT_TEXT, SHORT_INFO)["stances"]  # the turn's cached prediction, for the recorder
    assert "prediction" not in decision and stances.shape == (len(SCENARIO.parties), len(SCENARIO.topics))
    assert all((row != -1).any() for row in stances)


def test_tiny_model_garbage_raises_with_raise_fallback(vllm_backend):
    party = LLMParty(vllm_backend, SCENARIO, fallback="raise", **FAST)
    party.reset(0)
    with pytest.raises(ResampleLimitReached, match="thought"):
        party.act(SHORT_TEXT, SHORT_INFO)
    assert party.stats["parse_failures"] == 2
    judge = LLMMIJudge(vllm_backend, SCENARIO, fallback="random", **FAST)
    from tom_envs.negotiation.metrics import InterventionContext

    scores = judge(
        {"topic": 0, "strategy": "evaluative", "target": None}, InterventionContext((0.5,) * len(SCENARIO.topics))
    )
    assert scores["fallback"] is True and 1.0 <= scores["mean"] <= 5.0


def test_table_one_with_an_llm_mediator_through_the_benchmark(scripted, tmp_path):
    from benchmarks.negotiation.benchmark import NegotiationLLM, NegotiationRun, evaluate, llm_mediator_factory

    server, backend = scripted
    ident = {"backend": "openai", "model": "scripted", "base_url": "loopback", "fallback": "raise"}

    def table() -> tuple:
        return evaluate(
            NegotiationRun(
                levels=("hard",),
                mediators=("none", "llm-social"),
                scenarios=("hopkins_hmo",),
                runs=1,
                out=tmp_path,
                llm=NegotiationLLM(ident, llm_mediator_factory(backend, "raise")),
            )
        )

    rows, records = table()
    assert [r["mediator"] for r in rows] == ["none", "llm-social"]
    assert rows[1]["episodes"] == 1 and "cc" in records[(rows[1]["conflict_mode"], "llm-social")][0]["episode"]
    again, _ = table()
    assert again == rows  # resumed from the records


def test_table_one_in_lockstep_equals_one_by_one(scripted, tmp_path):
    """Through the generic runner: a lockstep batch of three (scenario, seed) episodes that spans two
    scenarios is played scenario by scenario, and every record equals the one played alone."""
    from benchmarks.negotiation.benchmark import NegotiationLLM, NegotiationRun, evaluate, llm_mediator_factory

    server, backend = scripted
    ident = {"backend": "openai", "model": "scripted", "base_url": "loopback", "fallback": "random"}
    runs = {}
    for lockstep in (1, 3):
        before = len(server.requests)
        rows, records = evaluate(
            NegotiationRun(
                levels=("hard",),
                mediators=("llm-social",),
                scenarios=("hopkins_hmo", "ias"),
                runs=2,
                out=tmp_path / str(lockstep),
                llm=NegotiationLLM(ident, llm_mediator_factory(backend, "random")),
                lockstep=lockstep,
            )
        )
        runs[lockstep] = (rows, records, len(server.requests) - before)
    assert runs[3][0] == runs[1][0] and runs[3][1] == runs[1][1]  # rows and records (llm_stats included)
    assert runs[3][2] == runs[1][2]  # the same requests, up to three episodes to a backend call
    assert all(rec["llm_stats"]["mediator"]["decisions"] > 0 for recs in runs[3][1].values() for rec in recs)


def test_llm_parties_with_the_llm_attitude_extractor_in_the_env(scripted):
    server, backend = scripted
    extractor = LLMAttitudeExtractor(backend, SCENARIO, fallback="raise")
    env = AECTextObservation(
        NegotiationEnv(
            scenario=SCENARIO, party_seats="all", turn_budget=20, conflict_mode="general", attitude_extractor=extractor
        )
    )
    parties = {a: LLMParty(backend, SCENARIO, fallback="raise") for a in env.possible_agents if a != MEDIATOR}
    ep = episode(env, parties, LLMMediator(backend, SCENARIO, variant="generic", fallback="raise"), seed=1)
    spoken = [e for e in env.events if e["seat"].startswith("party_")]
    assert spoken and ep["extraction"]["lines"] == len(spoken) == extractor.stats["decisions"]
    # the scripted judge hears every line as support for option b on the first topic, nothing else
    for e in spoken:
        assert e["attitudes"] == {SCENARIO.topics[0].name: SCENARIO.topics[0].options[1].label}
        assert env.tracker.attitudes[e["party"], 0] == 1
    assert ep["extractor"] == "llm-attitude" and ep["attitude_source"] == "extracted:agents"
    assert sum(
        1 for r in server.requests if "which option does this statement support" in r["messages"][-1]["content"]
    ) == len(spoken)


def test_benchmark_cli_with_llm_attitudes_keys_results_by_model(scripted, tmp_path, capsys):
    import argparse

    from benchmarks.negotiation import benchmark as bench

    server, _ = scripted
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)

    def cli(model: str) -> list[dict]:
        args = parser.parse_args(
            [
                "--mediator",
                "social",
                "--mode",
                "hard",
                "--scenarios",
                "hopkins_hmo",
                "--runs",
                "1",
                "--out",
                str(tmp_path),
                "--attitudes",
                "llm",
                "--backend",
                "openai",
                "--base-url",
                server.url,
                "--model",
                model,
                "--format",
                "json",
                "--mi-judge",
                "llm",
            ]
        )
        assert bench.run(args) == 0
        return json.loads(capsys.readouterr().out)

    rows = cli("scripted")
    assert rows[0]["attitudes"] == "extracted:all" and 0.0 <= rows[0]["extraction_agreement"] <= 1.0
    assert rows[0]["mi_judge"] == "llm-mi" and rows[0]["llm_fallbacks"] == 0
    record = json.loads(next((tmp_path / "negotiation").glob("*.jsonl")).read_text().splitlines()[0])
    assert set(record["llm_stats"]) == {"extractor", "mi_judge"}  # the scripted social mediator has none
    assert rows[0]["llm_decisions"] == sum(s["decisions"] for s in record["llm_stats"].values()) > 0
    n = len(server.requests)
    assert cli("scripted") == rows and len(server.requests) == n  # resumed: no new request
    cli("another-model")
    assert len(list((tmp_path / "negotiation").glob("*.jsonl"))) == 2  # models never mix


def test_the_mi_judge_reads_the_mediators_words_and_the_extractor_free_text_proposals():
    """002's judges read what was said: the MI prompt quotes the mediator's line; an option proposed
    mid-conversation comes back as a ProposedOption (recorded by the env, tracked option unchanged)."""
    first = SCENARIO.topics[0].name

    def reply(content: str, seed: int | None) -> str:
        if "which option does this statement support" in content:
            return json.dumps(
                {
                    "attitudes": {
                        t.name: ({"proposal": "a pilot year first"} if k == 0 else None)
                        for k, t in enumerate(SCENARIO.topics)
                    }
                }
            )
        if "Score the intervention" in content:
            return json.dumps({"perceptual": 4, "emotional": None, "cognitive": None, "communicative": None})
        return scripted_reply(content, seed)

    with scripted_backend(reply) as (server, backend):
        extractor = LLMAttitudeExtractor(backend, SCENARIO, fallback="raise")
        got = extractor.extract(0, "Could we try a pilot year first?")
        assert got[0] == ProposedOption("a pilot year first") and all(v is None for k, v in got.items() if k)
        mi = LLMMIJudge(backend, SCENARIO, fallback="raise")
        env = AECTextObservation(
            NegotiationEnv(
                scenario=SCENARIO,
                party_seats="all",
                turn_budget=20,
                mi_judge=mi,
                conflict_mode="general",
                attitude_extractor=extractor,
            )
        )
        mi.bind(env)
        parties = {a: LLMParty(backend, SCENARIO, fallback="raise") for a in env.possible_agents if a != MEDIATOR}
        ep = episode(env, parties, LLMMediator(backend, SCENARIO, variant="generic", fallback="raise"), seed=2)
        mi_prompts = [
            r["messages"][-1]["content"]
            for r in server.requests
            if "Score the intervention" in r["messages"][-1]["content"]
        ]
        assert ep["interventions"] and len(mi_prompts) == len(ep["interventions"])
        said = [e["text"] for e in env.events if e["seat"] == MEDIATOR and e.get("text")]
        for prompt in mi_prompts:  # each prompt quotes one of the mediator's lines
            assert any(f'saying: "{text}"' in prompt for text in said)
        assert ep["proposals"] and all(
            p["topic"] == first and p["text"] == "a pilot year first" for p in ep["proposals"]
        )


def test_max_resamples_reaches_every_llm_part_and_keys_the_run_only_when_set(scripted, tmp_path, capsys):
    """--max-resamples is honoured by the negotiation command (every LLM part's re-asks); runs with the parts'
    default keep their results keys."""
    server, _ = scripted
    server.garbage = 10_000  # no reply ever parses: every decision takes 1 + max_resamples calls, then falls back
    base = [
        "negotiation",
        "--policy",
        "llm-generic",
        "--mode",
        "hard",
        "--scenarios",
        "hopkins_hmo",
        "--runs",
        "1",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--fallback",
        "random",
        "--format",
        "json",
    ]
    from benchmarks.__main__ import main

    assert main([*base, "--out", str(tmp_path / "a"), "--max-resamples", "0"]) == 0
    zero = len(server.requests)
    (row,) = json.loads(capsys.readouterr().out)
    assert row["llm_fallbacks"] == row["llm_decisions"] > 0 and zero == row["llm_decisions"]  # one try each
    assert main([*base, "--out", str(tmp_path / "b")]) == 0  # the default: 2 re-asks per decision
    (again,) = json.loads(capsys.readouterr().out)
    assert len(server.requests) - zero == 3 * again["llm_decisions"]
    configs = [
        json.loads(p.read_text().splitlines()[0])["config"] for p in sorted(tmp_path.glob("*/negotiation/*.jsonl.runs"))
    ]
    assert [c["llm"].get("max_resamples") for c in configs] == [0, None], configs


def test_max_tokens_caps_every_request_and_keys_the_run_only_when_set(scripted, tmp_path, capsys):
    """--max-tokens caps every generated reply of the negotiation command's LLM parts (mediator, parties, MI judge);
    without it each part keeps its own cap (256), and the results key is the one runs without the option had."""
    server, _ = scripted
    base = [
        "negotiation",
        "--policy",
        "llm-generic",
        "--parties",
        "llm",
        "--mi-judge",
        "llm",
        "--mode",
        "hard",
        "--scenarios",
        "hopkins_hmo",
        "--runs",
        "1",
        "--budget",
        "paper",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--fallback",
        "random",
        "--format",
        "json",
    ]
    from benchmarks.__main__ import main

    assert main([*base, "--out", str(tmp_path / "a"), "--max-tokens", "48"]) == 0
    capped = list(server.requests)
    capsys.readouterr()
    assert main([*base, "--out", str(tmp_path / "b")]) == 0
    default = server.requests[len(capped) :]
    capsys.readouterr()
    assert len(capped) > 20 and {b.get("max_tokens") for b in capped} == {48}  # the chat bodies, every one
    assert {b.get("max_tokens") for b in default} == {256}
    configs = [
        json.loads(p.read_text().splitlines()[0])["config"] for p in sorted(tmp_path.glob("*/negotiation/*.jsonl.runs"))
    ]
    assert [c["llm"].get("max_tokens") for c in configs] == [48, None], configs
    names = [sorted(p.name for p in (tmp_path / d / "negotiation").glob("*.jsonl")) for d in "ab"]
    assert names[0] != names[1]  # a capped run is its own cell, never resumed into an uncapped one


def test_max_tokens_must_be_a_positive_count(capsys):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["negotiation", "--policy", "llm-generic", "--max-tokens", "0"])
    assert exc.value.code == 2 and "--max-tokens" in capsys.readouterr().err
