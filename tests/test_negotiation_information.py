"""The information rule on the negotiation env (issue 24), by counterfactuals.

Two episodes with the same seed and the same scripted policies, on two cases that differ only in one
party's *hidden* ranking on one topic (its first choice there changes): everything returned to the
mediator seat -- the numeric observation, the text an LLM reads (``wrappers.AECTextObservation``), the
info and reward of ``last()`` while the mediator is selected, ``env.infos``, ``env.rewards``, the ansi
render -- must be identical up to the first turn at which that party's own public lines differ (it
speaks in one episode and not in the other, or says something else). Before that turn nothing the
mediator holds can depend on the hidden first choice. With the party in an external seat playing a
fixed public script (its lines are the same in both cases), everything must be identical until the
episode ends, for the mediator and for another party seat; only the end-of-episode summary and the
one terminal reward (final consensus) may differ.

Also: v0's leaks stay closed (an intervention without an option names no hidden first choice, party
lines carry no motivation score), and the env's boolean flag takes a bool only.

The release test (``TOM_ENVS_PROMEDIATE_RELEASE=<clone of microsoft/ProMediate-Eval>``) runs the
same counterfactuals on the six released cases, bare and wrapped as the benchmark runner wraps the
env (:func:`benchmarks.runner.make_env`, then ``AECTextObservation`` as ``benchmarks.negotiation.benchmark``),
and through :func:`benchmarks.runner.play_aec` itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from policies.base import BasePolicy
from policies.negotiation.scripted import SocialMediator
from tom_envs.errors import InvalidFlag, UnknownEnvironment
from tom_envs.negotiation import BUILTIN_SCENARIOS
from tom_envs.negotiation.env import MEDIATOR, NegotiationEnv
from tom_envs.negotiation.scenario import Scenario, resolve_scenario
from wrappers import AECTextObservation

RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")
RELEASE_CASES = ("hmo", "flagship", "river", "ias", "williams", "francis")


# ---------------------------------------------------------------------- cases and policies
def edited(case: Scenario, party: int, topic: int) -> Scenario | None:
    """``case`` with ``party``'s hidden first choice on ``topic`` changed (the best other option it does
    not block moves to the top; utilities follow), or None when it blocks every other option."""
    data = json.loads(case.model_dump_json())
    t = case.topics[topic].name
    pref = data["parties"][party]["preferences"][t]
    ranking = pref["ranking"]
    new = next((o for o in ranking[1:] if o not in pref["unacceptable"]), None)
    if new is None:
        return None
    ranking.remove(new)
    ranking.insert(0, new)
    if pref.get("utilities"):
        values = sorted(pref["utilities"].values(), reverse=True)
        pref["utilities"] = dict(zip(ranking, values))
    other = Scenario.model_validate(data)
    assert other.top_option(party, topic) != case.top_option(party, topic)
    return other


class Prober(BasePolicy):
    """A mediator that intervenes every other turn *without an option*, rotating strategy, topic and
    target (integer codes and target dicts): the move the v0 env answered from hidden first choices."""

    name = "prober"

    def __init__(self, n: int, m: int) -> None:
        super().__init__()
        self.n, self.m = n, m

    def act(self, observation: Any, info: dict) -> Any:
        t = info["state"]["turn"]
        if t % 2:
            return 0
        j = t // 2
        s, k = j % 4, (j // 4) % self.m
        if j % 3 == 0:
            return 1 + s * self.m + k
        return {"strategy": s, "topic": k, "target": j % self.n}


class Script(BasePolicy):
    """A party seat with a fixed public script: every 5th turn it proposes option ``turn % 2`` on topic
    ``turn % M`` (the same lines whatever its private ranking), else it passes."""

    name = "script"

    def __init__(self, m: int, n_options: list[int]) -> None:
        super().__init__()
        self.m, self.n_options = m, n_options

    def act(self, observation: Any, info: dict) -> Any:
        t = info["state"]["turn"]
        if t % 5:
            return 0
        k = t % self.m
        return {"topic": k, "option": t % 2 % self.n_options[k], "utterance": f"On topic {k}, my proposal stands."}


def _state(env: NegotiationEnv) -> Any:
    try:
        return env.state()
    except NotImplementedError:
        return "no state()"


def _view(env: NegotiationEnv, wrapped: Any, agent: str, final: bool) -> str:
    """Everything ``agent`` can be handed now, as one string (the summary and the terminal reward are
    left out of the final view: the episode is over and its hidden states are revealed)."""
    text, reward, term, trunc, info = wrapped.last()
    infos = dict(env.infos[agent])
    if final:
        info, infos, reward = (
            {k: v for k, v in info.items() if k != "episode"},
            {k: v for k, v in infos.items() if k != "episode"},
            None,
        )
    return json.dumps(
        {
            "text": text,
            "text_again": env.text(agent),
            "obs": env.observe(agent).tolist(),
            "reward": reward,
            "rewards": None if final else env.rewards.get(agent),
            "term": term,
            "trunc": trunc,
            "info": info,
            "infos": infos,
            "render": env.render(),
            "state": _state(env),
        },
        sort_keys=True,
        default=str,
    )


def episode(
    case: Scenario,
    seed: int,
    mediator: BasePolicy,
    mode: str,
    seats: dict[int, BasePolicy] | None = None,
    watch: tuple[str, ...] = (MEDIATOR,),
    wrap: Callable[[NegotiationEnv], Any] | None = None,
    env_class: type = NegotiationEnv,
) -> tuple[list[tuple[int, str, str]], list[dict]]:
    """One episode; per decision of a watched seat (turn, seat, view), and the transcript."""
    seats = seats or {}
    env = env_class(scenario=case, conflict_mode=mode, party_seats=sorted(seats), render_mode="ansi")
    inner = env if wrap is None else wrap(env)
    wrapped = AECTextObservation(inner)
    recorder = inner if hasattr(inner, "record_prediction") else None
    policies = {MEDIATOR: mediator, **{f"party_{i}": p for i, p in seats.items()}}
    for p in policies.values():
        p.reset(seed)
    wrapped.reset(seed=seed)
    views: list[tuple[int, str, str]] = []
    for agent in wrapped.agent_iter():
        _, _, term, trunc, _ = wrapped.last()
        if agent in watch:
            views.append((env.turn, agent, _view(env, wrapped, agent, term or trunc)))
        if term or trunc:
            wrapped.step(None)
            continue
        obs, _, _, _, info = wrapped.last()
        if recorder is not None and agent == MEDIATOR:
            recorder.record_prediction(mediator.predict(obs, info))
        wrapped.step(policies[agent].act(obs, info))
    return views, [dict(e) for e in env.events]


def _lines(events: list[dict], party: int) -> list[tuple]:
    return [
        (e["turn"], e.get("topic"), e.get("option"), e.get("kind"), e.get("tone"), e["text"])
        for e in events
        if e.get("party") == party
    ]


def cut_turn(a: list[dict], b: list[dict], party: int) -> int:
    """The first turn at which ``party``'s public lines differ between two transcripts (a line in one
    and not the other, or another line); past the end when they never do."""
    la, lb = {x[0]: x for x in _lines(a, party)}, {x[0]: x for x in _lines(b, party)}
    diff = [t for t in set(la) | set(lb) if la.get(t) != lb.get(t)]
    return min(diff, default=10**9)


def check_pair(
    case: Scenario,
    other: Scenario,
    party: int,
    seed: int,
    mode: str,
    make_mediator,
    wrap=None,
    env_class: type = NegotiationEnv,
) -> dict[str, Any]:
    """Play both cases; assert the mediator's views agree before the party's lines first differ.
    Returns what happened at the cut (for the figures)."""
    (va, ea), (vb, eb) = (
        episode(c, seed, make_mediator(c), mode, wrap=wrap, env_class=env_class) for c in (case, other)
    )
    cut = cut_turn(ea, eb, party)
    before = [(x, y) for x, y in zip(va, vb) if x[0] < cut]
    assert len(before) == len([x for x in va if x[0] < cut]) == len([y for y in vb if y[0] < cut])
    for x, y in before:
        assert x == y, (case.name, party, seed, mode, x[0])
    if cut < 10**9:  # the first difference the mediator can see is the party's own line
        first = next((x[0] for x, y in zip(va, vb) if x != y), None)
        assert first is None or first >= cut
    la = {x[0]: x for x in _lines(ea, party)}
    lb = {x[0]: x for x in _lines(eb, party)}
    return {
        "cut": cut,
        "both_spoke": cut in la and cut in lb,
        "other_option": cut in la and cut in lb and la[cut][1] == lb[cut][1] and la[cut][2] != lb[cut][2],
    }


def check_scripted_seat(
    case: Scenario,
    other: Scenario,
    party: int,
    seed: int,
    mode: str,
    make_mediator,
    wrap=None,
    env_class: type = NegotiationEnv,
) -> None:
    """The party in an external seat with a fixed public script, one more party seat watched too: every
    view of the mediator and of that seat is the same until the end (summary and terminal reward aside)."""
    m = len(case.topics)
    n_options = [len(t.options) for t in case.topics]
    witness = (party + 1) % len(case.parties)
    runs = []
    for c in (case, other):
        seats = {party: Script(m, n_options), witness: Script(m, n_options)}
        runs.append(
            episode(
                c,
                seed,
                make_mediator(c),
                mode,
                seats,
                watch=(MEDIATOR, f"party_{witness}"),
                wrap=wrap,
                env_class=env_class,
            )
        )
    (va, ea), (vb, eb) = runs
    assert ea == eb, (case.name, party, seed, mode)
    assert va == vb, (case.name, party, seed, mode)


def _prober(case: Scenario) -> BasePolicy:
    return Prober(len(case.parties), len(case.topics))


def _social(case: Scenario) -> BasePolicy:
    return SocialMediator()


def _pairs(case: Scenario) -> list[tuple[int, int, Scenario]]:
    out = []
    for i in range(len(case.parties)):
        for k in range(len(case.topics)):
            other = edited(case, i, k)
            if other is not None:
                out.append((i, k, other))
    return out


# ---------------------------------------------------------------------- bundled cases
@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_a_hidden_first_choice_changes_nothing_the_mediator_sees_before_its_party_speaks(name):
    """Every (party, topic) of every bundled case, competing parties (the most volatile), the probing
    mediator (interventions without an option) and the social one."""
    case = resolve_scenario(name)
    stats = []
    for party, topic, other in _pairs(case):
        for make, seed in ((_prober, party + 7 * topic), (_social, 100 + party + 7 * topic)):
            stats.append(check_pair(case, other, party, seed, "competing", make))
    assert stats and any(s["cut"] > 1 for s in stats)


@pytest.mark.parametrize("name", BUILTIN_SCENARIOS)
def test_a_party_seat_with_public_lines_hides_its_first_choices_for_the_whole_episode(name):
    """The edited party in an external seat with a fixed script: identical views to the last step, on
    every topic of the first party and the first topic of every other party."""
    case = resolve_scenario(name)
    for party, topic, other in _pairs(case):
        if party == 0 or topic == 0:
            check_scripted_seat(case, other, party, 3 + topic, "general", _prober)


@pytest.mark.parametrize("name", ["hopkins_hmo", "ias"])
def test_v2_the_mediator_first_and_the_opening_line_still_hide_every_unstated_first_choice(name):
    """tom/Negotiation-v2 (the mediator acts first, the parties only when it passes; the opening line): the
    same counterfactuals, every (party, topic) with the probing mediator, and the scripted-seat check on the
    first party's topics."""
    from tom_envs.negotiation.env_v2 import NegotiationEnvV2

    case = resolve_scenario(name)
    stats = [
        check_pair(case, other, party, party + 7 * topic, "competing", _prober, env_class=NegotiationEnvV2)
        for party, topic, other in _pairs(case)
    ]
    assert stats and any(s["cut"] > 1 for s in stats)
    for party, topic, other in _pairs(case):
        if party == 0:
            check_scripted_seat(case, other, party, 3 + topic, "general", _prober, env_class=NegotiationEnvV2)


def test_wrapped_as_the_runner_wraps_it_the_mediator_still_sees_nothing():
    """The same counterfactuals through ``wrappers.AECToMRecorder`` (predictions recorded each turn)
    and the text wrapper, as :func:`benchmarks.runner.make_env` and ``benchmarks.negotiation.benchmark`` wrap it."""
    from wrappers import AECToMRecorder

    case = resolve_scenario("hopkins_hmo")
    for party, topic, other in _pairs(case)[::3]:
        check_pair(case, other, party, topic, "general", _social, wrap=AECToMRecorder)
        check_scripted_seat(case, other, party, topic, "competing", _social, wrap=AECToMRecorder)


def test_an_intervention_without_an_option_names_only_a_stated_one():
    """Nobody has spoken on the topic: the intervention points to no option (v0 named the plurality of
    the hidden first choices); once stances are stated, their plurality (ties: lowest index)."""
    env = NegotiationEnv(scenario="hopkins_hmo", conflict_mode="general")
    env.reset(seed=0)
    env.step({"strategy": "problem_solving", "topic": 0})
    ev = env.events[-1]
    assert ev["kind"] == "intervention" and ev["option"] is None
    for opt in env.scenario.topics[0].options:
        assert f"({opt.label})" not in ev["text"] and opt.text not in ev["text"]
    for _ in range(40):
        if (env.stated[:, 0] >= 0).any():
            break
        env.step(0)
    col = [int(s) for s in env.stated[:, 0] if s >= 0]
    best = min(set(col), key=lambda o: (-col.count(o), o))
    env.step({"strategy": "evaluative", "topic": 0, "target": 0})
    assert env.events[-1]["option"] == env.scenario.topics[0].options[best].label


def test_party_lines_carry_no_internal_score():
    env = NegotiationEnv(scenario="ias", conflict_mode="competing", party_seats=[1])
    env.reset(seed=5)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        elif agent == "party_1":
            env.step({"topic": 0, "option": 0, "motivation": 0.93})
        else:
            env.step(0)
    lines = [e for e in env.events if e.get("party") is not None]
    assert lines and all(
        set(e) <= {"turn", "speaker", "seat", "party", "kind", "topic", "topic_index", "option", "tone", "text"}
        for e in lines
    )
    assert "0.93" not in json.dumps(env.public_state()) and "motivation" not in json.dumps(env.public_state())


def test_rewards_come_once_at_the_end_with_the_v0_returns():
    env = NegotiationEnv(scenario="flagship", conflict_mode="general", party_seats=[2])
    env.reset(seed=1)
    seen: dict[str, list[float]] = {a: [] for a in env.agents}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        seen[agent].append(reward)
        env.step(None if term or trunc else 0)
    ep = env.episode_summary()
    assert all(r == 0.0 for rs in seen.values() for r in rs[:-1])
    assert seen[MEDIATOR][-1] == pytest.approx(ep["consensus"][-1] - ep["consensus"][0], abs=1e-5)


@pytest.mark.parametrize("value", ["false", "no", 0, 1, None])
def test_the_mediator_flag_takes_a_bool_only(value):
    with pytest.raises(InvalidFlag, match="mediator takes True or False"):
        NegotiationEnv(mediator=value, party_seats="all")
    assert MEDIATOR not in NegotiationEnv(mediator=False, party_seats="all").possible_agents


def test_the_registered_ids_pass_flags_through_and_the_v0_ids_are_retired():
    import tom_envs

    with pytest.raises(InvalidFlag):
        tom_envs.make_aec("tom/Negotiation-Hard-v1", mediator="false", party_seats="all")
    for lvl in ("", "-Easy", "-Medium", "-Hard"):
        with pytest.raises(UnknownEnvironment, match=f"tom/Negotiation{lvl}-v1"):
            tom_envs.make_aec(f"tom/Negotiation{lvl}-v0")


# ---------------------------------------------------------------------- the released cases
def _release_cases() -> list[Scenario]:
    if not RELEASE:
        pytest.skip("set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
    return [Scenario.from_file(Path(RELEASE) / "cases" / f"{c}.json") for c in RELEASE_CASES]


def test_release_cases_hide_every_unstated_first_choice_from_the_mediator():
    """All six released cases, every (party, topic), bare: the views agree before the party's lines
    first differ; with the party in a scripted seat, to the end."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = _release_cases()
    for case in cases:
        for party, topic, other in _pairs(case):
            check_pair(case, other, party, party + topic, "competing", _prober)
            check_pair(case, other, party, party + topic, "general", _social)
            check_scripted_seat(case, other, party, topic, "general", _prober)


def test_release_cases_through_the_runner_show_the_mediator_nothing_hidden():
    """All six released cases, wrapped exactly as the benchmark runner wraps the env
    (``benchmarks.runner.make_env`` of the id, then ``AECTextObservation`` as ``benchmarks.negotiation.benchmark``)
    and played by ``benchmarks.runner.play_aec``: what the runner hands the mediator (observation and
    info, to ``predict`` and ``act``) is the same in both cases until the edited party's lines differ."""
    import warnings

    from benchmarks.negotiation.cells import level_env_id
    from benchmarks.runner_aec import play_aec
    from benchmarks.runner_envs import make_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = _release_cases()

    class Recording(BasePolicy):
        def __init__(self, inner: BasePolicy) -> None:
            super().__init__()
            self.inner, self.seen = inner, []

        def reset(self, seed: int | None = None) -> None:
            self.inner.reset(seed)
            self.seen = []

        def predict(self, observation: Any, info: dict) -> Any:
            self.seen.append(json.dumps([observation, info], sort_keys=True, default=str))
            return self.inner.predict(observation, info)

        def act(self, observation: Any, info: dict) -> Any:
            self.seen.append(json.dumps([observation, info], sort_keys=True, default=str))
            return self.inner.act(observation, info)

    env_id = level_env_id("hard", 1)
    for case in cases:
        for (party, topic, other), make in zip(_pairs(case), [_social, _prober] * 50):
            seen, events = [], []
            for c in (case, other):
                env = AECTextObservation(make_env(env_id, scenario=c))
                rec = Recording(make(c))
                result = play_aec(env, rec, seed=party + topic)
                seen.append(rec.seen)
                events.append(env.unwrapped.events)
                assert "tom" not in {k for s in rec.seen[:-1] for k in json.loads(s)[1]}
            cut = cut_turn(events[0], events[1], party)
            turns = [json.loads(s)[1]["turn"] for s in seen[0]]
            n = sum(1 for t in turns if t < cut)
            assert seen[0][:n] == seen[1][:n], (case.name, party, topic)
            assert "tom_steps" in result.summary  # the recorder's summary, read by the runner


def test_every_boolean_option_of_the_family_takes_a_bool_only(tmp_path):
    """The importer's ``strict``, the download's ``overwrite`` and the social mediator's ``predict``: a
    string such as "false" is a named error, not a truthy switch."""
    from tom_envs.negotiation.download import download
    from tom_envs.negotiation.scenario import Scenario

    case = tmp_path / "case.json"
    case.write_text("{}")
    with pytest.raises(InvalidFlag, match="strict takes True or False"):
        Scenario.from_promediate(case, strict="false")
    with pytest.raises(InvalidFlag, match="overwrite takes True or False"):
        download(tmp_path, overwrite="no")
    with pytest.raises(InvalidFlag, match="predict takes True or False"):
        SocialMediator(predict="false")
