"""The release loop's bookkeeping without a model: memory and saliency, the turn-taking thresholds and
the speaker rule (nobody twice in a row), as ProMediate-Eval's ``thoughtful_agents`` keeps them."""

from __future__ import annotations

from types import SimpleNamespace

from policies.negotiation.llm.loop import (
    ANYONE,
    IM_THRESHOLD,
    INTERRUPT_THRESHOLD,
    Item,
    Mind,
    ReleaseLoop,
    initial_memory,
    similarity,
    words,
)
from tom_envs.negotiation.render import MODE_PERSONAS
from tom_envs.negotiation.scenario import Scenario, resolve_scenario


def _party(scenario: Scenario, index: int, scores: list[float]) -> SimpleNamespace:
    mind = Mind(initial_memory(scenario, index, "competing"))
    items = [Item(f"THO#{index}.{x}", f"thought {x}", words(f"thought {x}"), score=s) for x, s in enumerate(scores)]
    mind.thoughts.extend(items)
    return SimpleNamespace(scenario=scenario, party=index, mind=mind, items=items)


def _with_thresholds(im: float, interrupt: float) -> Scenario:
    data = resolve_scenario("hopkins_hmo").model_dump()
    for p in data["parties"]:
        p["turn_taking"] = {"im_threshold": im, "interrupt_threshold": interrupt}
    return Scenario.from_dict(data)


def test_thresholds_come_from_the_case_else_the_release_defaults():
    loop = ReleaseLoop()
    plain = _party(resolve_scenario("hopkins_hmo"), 0, [])
    assert loop.thresholds(plain) == (IM_THRESHOLD, INTERRUPT_THRESHOLD) == (3.5, 4.0)
    hmo = _party(_with_thresholds(3.0, 2.5), 0, [])  # the release's HMO parties
    assert loop.thresholds(hmo) == (3.0, 2.5)


def test_selection_follows_the_turn_allocation():
    sc = resolve_scenario("hopkins_hmo")
    loop = ReleaseLoop()
    name = sc.parties[0].name
    for allocated, scores, selected in (
        (ANYONE, [3.4, 2.0], False),
        (ANYONE, [3.5, 2.0], True),
        (name, [1.2, 1.0], True),  # the floor is ours: the best thought
        (sc.parties[1].name, [3.9, 1.0], False),  # someone else's: interrupt at 4
        (sc.parties[1].name, [4.0, 1.0], True),
    ):
        p = _party(sc, 0, scores)
        loop.select(p, p.items, allocated)
        assert p.items[0].selected is selected and not p.items[1].selected, (allocated, scores)


def test_the_speaker_is_never_the_last_one_and_falls_back_to_salient_thoughts():
    sc = resolve_scenario("hopkins_hmo")
    a, b, c = _party(sc, 0, [4.9]), _party(sc, 1, [4.0]), _party(sc, 2, [3.0])
    for p in (a, b, c):
        p.items[0].selected = True
    last = [{"turn": 3, "party": 0, "speaker": sc.parties[0].name, "text": "x"}]
    j, thought = ReleaseLoop.speaker([a, b, c], last)
    assert j == 1 and thought is b.items[0]  # a spoke last; b's 4.0 beats c's 3.0
    for p in (a, b, c):
        p.items[0].selected = False
    b.items[0].saliency, c.items[0].saliency = 0.1, 0.5
    c.mind.thoughts.append(Item("THO#old", "older", words("older"), score=4.5, saliency=0.2))
    j, thought = ReleaseLoop.speaker([a, b, c], last)
    # nobody selected: each other party offers its most salient thought; the most motivated wins
    assert j == 1 and thought is b.items[0]
    assert ReleaseLoop.speaker([a], last) is None


def test_memory_is_the_profile_by_paragraphs_and_the_mode_and_saliency_follows_the_lines():
    sc = resolve_scenario("hopkins_hmo")
    mem = initial_memory(sc, 1, "accommodating")
    assert mem[-1].content == MODE_PERSONAS["accommodating"]
    assert initial_memory(sc, 1, "competing")[-1].content == MODE_PERSONAS["competing"]
    mind = Mind(mem)
    assert all(m.saliency == 0.0 for m in mind.ltm)
    goal = next(m for m in mind.ltm if m.content.startswith("Goal:"))
    mind.heard({"turn": 2, "speaker": "X", "text": goal.content})
    assert goal.saliency == max(m.saliency for m in mind.ltm) > 0.9
    top = mind.top(mind.ltm, 5, 0.1, turn=2)
    assert goal in top and all(m.last_accessed_turn == 2 for m in top) and len(mind.stm) == 1
    # an item accessed after the line is not recalibrated by it (the release skips it)
    goal.last_accessed_turn = 9
    mind.heard({"turn": 3, "speaker": "X", "text": "something else entirely"})
    assert goal.saliency > 0.9
    assert similarity(words("formulary status open"), words("open formulary")) > 0.8
    assert similarity(words(""), words("x")) == 0.0
