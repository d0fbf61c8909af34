"""Attitudes read from text: the env's ``attitude_extractor=`` hook, the rule-based keyword
extractor, and the validation of what an extractor returns."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.negotiation.benchmark import play_episode as play
from policies.negotiation.scripted import NoAgentMediator, SocialMediator
from tom_envs.negotiation import BUILTIN_SCENARIOS, NegotiationConfigError
from tom_envs.negotiation.consensus import KeywordAttitudeExtractor, check_attitudes
from tom_envs.negotiation.env import NegotiationEnv
from tom_envs.negotiation.errors import AttitudeExtractionError
from tom_envs.negotiation.scenario import resolve_scenario
from tom_envs.negotiation.templates import PARTY


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_keyword_extractor_reads_every_template_line_exactly(name):
    sc = resolve_scenario(name)
    ex = KeywordAttitudeExtractor(sc)
    for k, topic in enumerate(sc.topics):
        for o in range(len(topic.options)):
            for lines in PARTY.values():
                for line in lines:
                    text = line.format(topic=topic.name, option=topic.option_text(o))
                    got = ex(0, text)
                    assert got[k] == o, (text, got)
                    assert all(v is None for kk, v in got.items() if kk != k), (text, got)


def test_keyword_extractor_needs_the_topic_name_when_two_topics_match():
    sc = resolve_scenario("hopkins_hmo")
    ex = KeywordAttitudeExtractor(sc)
    t0, t1 = sc.topics[0], sc.topics[1]
    both = f"{t0.options[1].text} and {t1.options[2].text}"
    assert all(v is None for v in ex(0, both).values())  # two topics, no names: ambiguous
    assert ex(0, f"On {t1.name}: {both}")[1] == 2
    assert ex(0, "Nothing to add.") == {k: None for k in range(len(sc.topics))}


def test_perfect_extraction_of_scripted_lines_changes_nothing():
    kw = dict(scenario="williams_medical_center", conflict_mode="competing")
    plain = play(NegotiationEnv(**kw), SocialMediator(), 5)
    env = NegotiationEnv(
        **kw, attitude_extractor=KeywordAttitudeExtractor(resolve_scenario(kw["scenario"])), extract_from="all"
    )
    read = play(env, SocialMediator(), 5)
    assert read["consensus"] == plain["consensus"] and read["topic_consensus"] == plain["topic_consensus"]
    ex = read["extraction"]
    spoken = sum(1 for e in env.events if e["seat"].startswith("party_"))
    assert ex == {"lines": spoken, "agree": spoken, "other_option": 0, "not_addressed": 0, "extra_topics": 0}
    assert (read["attitude_source"], read["extractor"]) == ("extracted:all", "keyword")
    assert plain["attitude_source"] == "stated" and plain["extraction"] is None
    first = next(e for e in env.events if e["seat"].startswith("party_"))
    assert first["attitudes"] == {first["topic"]: first["option"]}


def test_extracted_attitudes_drive_consensus_and_are_audited():
    sc = resolve_scenario("hopkins_hmo")

    def always_last(party: int, text: str) -> dict:
        """Hears every line as support for the last option of every topic."""
        return {t.name: t.options[-1].label for t in sc.topics}

    env = NegotiationEnv(scenario=sc, conflict_mode="general", attitude_extractor=always_last, extract_from="all")
    ep = play(env, NoAgentMediator(), 0)
    speakers = {e["party"] for e in env.events if e["seat"].startswith("party_")}
    last = [len(t.options) - 1 for t in sc.topics]
    for i in speakers:
        assert list(env.tracker.attitudes[i]) == last and list(env.stated[i]) == last
    ex = ep["extraction"]
    assert ex["lines"] == ex["agree"] + ex["other_option"] + ex["not_addressed"] > 0
    assert ex["other_option"] > 0 and ex["extra_topics"] == ex["lines"] * (len(sc.topics) - 1)
    # every line now mentions every topic
    assert int(env.mentions.sum()) == ex["lines"] * len(sc.topics) + len(env.mediator_turns)


def test_agents_scope_reads_only_text_written_by_a_seat():
    sc = resolve_scenario("hopkins_hmo")
    heard: list[tuple[int, str]] = []

    def extractor(party: int, text: str) -> dict:
        heard.append((party, text))
        return {0: 0}  # the first topic's first option, whatever was said

    env = NegotiationEnv(scenario=sc, party_seats=["Lee Park"], attitude_extractor=extractor)
    env.reset(seed=0)
    env.step(
        {
            "topic": "Formulary status",
            "option": "Exclusive",
            "act": "propose",
            "motivation": 1.0,
            "utterance": "We propose the first option on market share.",
        }
    )
    env.step(0)  # the mediator passes; Lee Park (motivation 1.0) speaks
    assert heard == [(1, "We propose the first option on market share.")]
    k = [t.name for t in sc.topics].index("Formulary status")
    assert env.tracker.attitudes[1, 0] == 0
    assert env.tracker.attitudes[1, k] == sc.top_option(1, k)  # the structured stance was not what was said
    ev = env.events[-1]
    assert ev["attitudes"] == {sc.topics[0].name: sc.topics[0].options[0].label}
    assert env.extraction["not_addressed"] == 1
    # a dict action without an utterance uses a template line: exact, not extracted
    env.step({"topic": "Formulary status", "option": "Exclusive", "act": "propose", "motivation": 1.0})
    env.step(0)
    assert len(heard) == 1 and env.tracker.attitudes[1, k] == sc.topics[k].labels.index("c")  # (c) Exclusive


@pytest.mark.parametrize(
    "bad, match",
    [
        (["a"], "must return a mapping"),
        ({"No such topic": "a"}, "unknown topic"),
        ({0: "z"}, "returned option 'z'"),
        ({0: True}, "returned option True"),
        ({99: 0}, "unknown topic 99"),
    ],
)
def test_bad_extractor_output_raises_a_named_error(bad, match):
    env = NegotiationEnv(scenario="hopkins_hmo", attitude_extractor=lambda i, text: bad, extract_from="all")
    env.reset(seed=0)
    with pytest.raises(AttitudeExtractionError, match=match):
        while True:
            env.step(0)


def test_check_attitudes_accepts_names_labels_and_indices():
    sc = resolve_scenario("hopkins_hmo")
    got = check_attitudes(sc, {sc.topics[0].name: sc.topics[0].options[1].label, 1: np.int64(2)}, "x")
    assert got[0] == 1 and got[1] == 2 and all(got[k] is None for k in range(2, len(sc.topics)))


def test_extractor_arguments_are_checked():
    with pytest.raises(NegotiationConfigError, match="attitude_extractor must be callable"):
        NegotiationEnv(attitude_extractor="llm")  # type: ignore[arg-type]
    with pytest.raises(NegotiationConfigError, match="extract_from must be"):
        NegotiationEnv(attitude_extractor=lambda i, t: {}, extract_from="scripted")


def test_pettingzoo_api_and_seed_tests_with_an_extractor():
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        from pettingzoo.test import api_test, seed_test

    def make() -> NegotiationEnv:
        sc = resolve_scenario("ias")
        return NegotiationEnv(
            scenario=sc, party_seats=[0, 2], attitude_extractor=KeywordAttitudeExtractor(sc), extract_from="all"
        )

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(make(), num_cycles=40)
        seed_test(make, num_cycles=40)


def test_an_option_proposed_in_free_text_is_recorded_not_forced_onto_a_label():
    """002 keeps attitudes as free text; an extractor can report an option that is none of the case's."""
    from tom_envs.negotiation.consensus import ProposedOption

    sc = resolve_scenario("hopkins_hmo")
    new = "a three-year contract with a review after 18 months"

    def extractor(i, text):
        return {"Contract term": ProposedOption(new), "Formulary status": {"proposal": "dual, then exclusive"}}

    env = NegotiationEnv(scenario=sc, conflict_mode="general", attitude_extractor=extractor, extract_from="all")
    env.reset(seed=0)
    before = env.tracker.attitudes.copy()
    env.step(0)
    ev = [e for e in env.infos["mediator_0"]["state"]["events"] if e.get("proposals")][-1]
    assert ev["proposals"] == {"Contract term": new, "Formulary status": "dual, then exclusive"}
    k = [t.name for t in sc.topics].index("Contract term")
    assert (env.tracker.attitudes[:, k] == before[:, k]).all()  # no label is made up for it
    ep = play(env, NoAgentMediator(), 0)
    assert ep["proposals"] and ep["proposals"][0]["text"] in (new, "dual, then exclusive")
    assert ep["extraction"]["proposals"] == len(ep["proposals"])
    with pytest.raises(AttitudeExtractionError, match="proposal"):
        check_attitudes(sc, {"Contract term": "three years"}, "x")  # a plain non-label string stays an error
    with pytest.raises(AttitudeExtractionError, match="text"):
        ProposedOption("  ")
