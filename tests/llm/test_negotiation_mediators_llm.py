"""002's social mediator as the release builds it (``llm-social-paper``): motivation against 3.5,
candidates under the four strategies rated and the best put into words, the online consensus
status, and a conclusion that ends the session -- on the scripted loopback server and the tiny model."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from benchmarks.__main__ import main
from benchmarks.runner_aec import play_aec
from policies.matrix.llm.strategies import InvalidPolicyConfig, ResampleLimitReached
from policies.negotiation.llm import SocialMediatorLLM, consensus_status
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv
from tom_envs.negotiation.metrics import STRATEGIES
from wrappers import AECTextObservation

from .scripted_server import scripted_backend
from .test_negotiation_llm import SCENARIO, scripted_reply

#: how the scripted judge rates each strategy's candidate (problem-solving is always the best)
RATING = {"facilitative": 2.5, "evaluative": 2.0, "transformative": 3.0, "problem-solving": 4.5}


def mediator_reply(content: str, seed: int) -> str:
    r = (seed or 0) ^ zlib.crc32(content[-300:].encode())
    sc = SCENARIO
    if "Decide whether now is a good moment for you to step in" in content:
        return json.dumps(
            {
                "reasoning": "Two parties repeat themselves on pricing.",
                "should_engage": r % 4 != 0,
                "rating": round(1.0 + (r % 41) / 10, 1),
            }
        )
    if "Draft four candidate interventions" in content:
        return json.dumps(
            {
                "candidates": [
                    {
                        "strategy": s,
                        "topic": sc.topics[(r + x) % len(sc.topics)].name,
                        "target": sc.parties[x % len(sc.parties)].name if x % 2 else None,
                        "idea": f"idea {x}",
                    }
                    for x, s in enumerate(STRATEGIES)
                ]
            }
        )
    if "A candidate intervention:" in content:
        strategy = content.split("A candidate intervention: ", 1)[1].split(" on ", 1)[0]
        return json.dumps({"reasoning": "fits", "rating": RATING[strategy]})
    if "You step in now with this plan:" in content:
        plan = content.split("You step in now with this plan: ", 1)[1].split("\n", 1)[0]
        return json.dumps({"utterance": f"Let us try this: {plan}"})
    if "Every topic is resolved." in content:
        return json.dumps({"utterance": "We have agreed on everything. Thank you."})
    return scripted_reply(content, seed)


@pytest.fixture
def scripted():
    with scripted_backend(mediator_reply) as pair:
        yield pair


def _episode(backend, seed: int, mode: str = "competing") -> tuple[dict, NegotiationEnv, list[dict]]:
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, conflict_mode=mode, turn_budget=24))
    mediator = SocialMediatorLLM(backend, SCENARIO, fallback="raise")
    decisions: list[dict] = []

    class Watch:  # records what the mediator decided at every turn
        name = "watch"

        def reset(self, seed=None):
            mediator.reset(seed)

        def act(self, obs, info):
            action = mediator.act(obs, info)
            decisions.append(
                {
                    "turn": info["state"]["turn"],
                    "action": action,
                    "last": dict(mediator.last),
                    "calls": list(mediator.caller.calls),
                }
            )
            return action

    summary = play_aec(env, Watch(), seed).info["episode"]
    return summary, env.unwrapped, decisions


def test_it_steps_in_above_3_5_with_the_best_rated_candidate_in_its_own_words(scripted):
    _, backend = scripted
    summary, env, decisions = _episode(backend, seed=3)
    stepped = [d for d in decisions if d["action"].get("intervene")]
    waited = [d for d in decisions if "rating" in d["last"] and not d["action"].get("intervene")]
    assert stepped and waited
    for d in stepped:
        assert d["last"]["should_engage"] and d["last"]["rating"] > 3.5
        assert d["action"]["strategy"] == "problem_solving"  # the best-rated candidate
        assert d["last"]["ratings"] == [RATING[s.replace("_", "-")] for s in STRATEGIES]
        assert d["action"]["utterance"].startswith("Let us try this: problem-solving on ")
    for d in waited:
        assert not (d["last"]["should_engage"] and d["last"]["rating"] > 3.5)
    # never right after itself, and its words are what the env records
    lines = [e for e in env.events if e["seat"] == MEDIATOR]
    assert lines and all(e["text"].startswith("Let us try this") for e in lines)
    seats = [e["seat"] for e in env.events]
    assert all(not (a == b == MEDIATOR) for a, b in zip(seats, seats[1:]))
    assert {iv["strategy"] for iv in summary["interventions"]} == {"problem_solving"}


def test_it_reads_the_consensus_status_from_what_parties_stated(scripted):
    server, backend = scripted
    _episode(backend, seed=1)
    whens = [
        m["content"]
        for req in server.requests
        for m in req["messages"]
        if "good moment for you to step in" in m["content"]
    ]
    assert whens and all("Consensus status" in w for w in whens)
    assert any("no explicit statement yet" in w for w in whens) and all("unresolved (" in w for w in whens)
    state = {"stated": [[0, 1, -1, 2, 0], [0, 0, -1, 2, 0], [0, 1, 3, 2, 0]]}
    status = consensus_status(SCENARIO, state)
    assert [s["resolved"] for s in status] == [True, False, False, True, True]
    assert status[2]["stances"][SCENARIO.parties[0].name] is None and status[0]["option"] == "a"


def test_it_concludes_when_every_topic_is_resolved_and_the_episode_ends(scripted):
    _, backend = scripted
    env = AECTextObservation(NegotiationEnv(scenario=SCENARIO, conflict_mode="accommodating"))
    mediator = SocialMediatorLLM(backend, SCENARIO, fallback="raise")
    mediator.reset(0)
    env.reset(seed=0)
    base = env.unwrapped
    base.step(0)  # a party speaks
    info = env.infos[MEDIATOR]
    info["state"]["stated"] = [[0] * len(SCENARIO.topics) for _ in SCENARIO.parties]  # as if all agreed
    action = mediator.act(env.observe(MEDIATOR), info)
    assert action == {"conclude": True, "utterance": "We have agreed on everything. Thank you."}
    assert [s for s, _ in mediator.caller.calls] == ["conclude"]
    base.step(action)
    assert base.terminations[MEDIATOR] and base.infos[MEDIATOR]["episode"]["concluded"] == 2


def test_same_seed_same_episode_and_the_cli_plays_it_next_to_the_generic_mediator(scripted, tmp_path, capsys):
    server, backend = scripted
    assert _episode(backend, seed=7)[0] == _episode(backend, seed=7)[0]
    argv = [
        "negotiation",
        "--policy",
        "social,llm-generic,llm-social-paper",
        "--mode",
        "hard",
        "--scenarios",
        "hopkins_hmo",
        "--episodes",
        "2",
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "scripted",
        "--out",
        str(tmp_path),
        "--format",
        "json",
    ]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["mediator"] for r in rows] == ["social", "llm-generic", "llm-social-paper"]
    paper = rows[2]
    assert paper["llm_decisions"] > 0 and paper["llm_fallbacks"] == 0 and paper["interventions"] > 0
    with pytest.raises(InvalidPolicyConfig, match="one negotiation episode at a time"):
        SocialMediatorLLM(backend, SCENARIO).reset_batch([0, 1])


FAST = {"max_resamples": 1, "max_tokens": 8, "temperature": 1.0}


@pytest.mark.slow
def test_on_the_tiny_model_garbage_falls_back_and_is_counted(vllm_backend):
    from tom_envs.negotiation.scenario import Scenario

    from .test_negotiation_parties import SMALL

    small = Scenario.from_dict(SMALL)  # the tiny model's context is 2048 tokens
    env = AECTextObservation(NegotiationEnv(scenario=small, conflict_mode="competing", turn_budget=20))
    mediator = SocialMediatorLLM(vllm_backend, small, fallback="random", **FAST)
    summary = play_aec(env, mediator, 0).info["episode"]
    # the budget, or earlier when both parties have stated the same options and it concluded
    assert summary["turns"] == 20 or summary["concluded"] == summary["turns"] < 20
    assert mediator.stats["fallbacks"] > 0 and mediator.stats["parse_failures"] >= mediator.stats["fallbacks"]
    assert np.isfinite(summary["consensus"]).all()
    with pytest.raises(ResampleLimitReached):
        SocialMediatorLLM(vllm_backend, small, fallback="raise", **FAST).act(
            env.observe(MEDIATOR),
            {
                "state": {
                    **env.unwrapped.public_state(),
                    "events": [{"seat": "party_0", "turn": 1, "speaker": "x", "text": "y"}],
                }
            },
        )
