"""Live persuasion keeps the information rule end to end (issue 24, docs/persuasion_live.md "Information rule").

A persuader that reads everything the benchmark runner hands it -- and remembers it -- must not beat the
exact Bayes-optimal fair persuader on ``tom/Persuasion-v1`` or the persuader seat of
``tom/Persuasion-TwoSeat-v1``: :class:`tests.persuasion_cheater.CheatingPersuader` fits value -> hidden-state
tables on training episodes and conditions its exact posterior on them in held-out ones, played through
``benchmarks.runner.make_env`` and ``play`` / ``play_aec`` on the same seeds as the Bayes persuader.
The same cheater beats Bayes when the documented oracle flag hands it the state, and when a wrapper hands
back the recorder's per-step records the way the recorder itself did before issue 24 -- so the tests can
fail.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from pettingzoo.utils.wrappers import BaseWrapper

import tom_envs
from benchmarks.runner_envs import recorder_of, make_env
from tests.persuasion_cheater import TWO_SEAT, V1, compare
from tom_envs.errors import InvalidFlag
from tom_envs.persuasion.mind_two_seat import FAITHFUL, PERSUADER
from tom_envs.persuasion.scenarios import FAMILIES
from wrappers import AECTextObservation, TextObservation

TRAIN, TEST = range(10_000, 10_120), range(200)


class HandsBackRecords(gym.Wrapper):
    """What the recorder did before issue 24: each step's record (the persuadee's true desire, belief and
    intention before the step) in the info the policy receives."""

    def step(self, action):
        obs, reward, term, trunc, info = self.env.step(action)
        if not (term or trunc):
            info = {**info, "tom": dict(recorder_of(self.env).last_record)}
        return obs, reward, term, trunc, info


class AECHandsBackRecords(BaseWrapper):
    """The AEC recorder before issue 24: its latest record in the predictor seat's ``last()`` info."""

    def last(self, observe: bool = True):
        obs, reward, term, trunc, info = self.env.last(observe)
        record = recorder_of(self.env).last_record
        if self.env.agent_selection == PERSUADER and record is not None:
            info = {**info, "tom": dict(record)}
        return obs, reward, term, trunc, info


@pytest.mark.parametrize("env_id", [V1, TWO_SEAT])
def test_a_persuader_reading_everything_the_runner_returns_does_not_beat_bayes(env_id):
    result = compare(lambda: make_env(env_id), TRAIN, TEST, two_seat=env_id == TWO_SEAT)
    gain, half = result.gain
    assert gain - half <= 0.0, f"{env_id}: the cheater beats Bayes: {result.line()}"
    # stronger, and what makes it deterministic: nothing returned moved its posterior, so it played Bayes
    assert result.rules == [] and result.cheater == result.bayes, result.rules[:5]
    assert 70.0 < result.rate(result.bayes)[0] < 90.0  # the exact Bayes value is 80.6 % over the families


@pytest.mark.parametrize("env_id", [V1, TWO_SEAT])
@pytest.mark.parametrize("how", ["oracle flag", "records handed back"])
def test_the_same_persuader_beats_bayes_when_the_state_is_handed_to_it(env_id, how):
    two_seat = env_id == TWO_SEAT
    if how == "oracle flag":
        make = lambda: make_env(env_id, expose_state=True)  # noqa: E731
    else:
        make = lambda: (AECHandsBackRecords if two_seat else HandsBackRecords)(make_env(env_id))  # noqa: E731
    result = compare(make, TRAIN, TEST, two_seat=two_seat)
    gain, half = result.gain
    assert gain - half > 0.0, f"{env_id} ({how}): the cheater should beat Bayes: {result.line()}"
    paths = {r.path for r in result.rules}
    assert (
        any("state" in p or "persona" in p for p in paths)
        if how == "oracle flag"
        else any(p.startswith("info.tom.") for p in paths)
    ), sorted(paths)


def _persuader_views(env_id: str, family: str, persona: str, seed: int, actions: list[int]) -> list:
    """Everything the persuader is handed, through ``make_env`` and the text wrapper the LLM seats use,
    until the episode ends: (observation text, numeric observation, reward, info, extra) at each of its
    turns; two-seat ``extra``: what the persuadee seat's scorer reads (``seat_view()``), else None."""
    env = make_env(env_id, families=family)
    views = []
    if env_id == V1:
        text = TextObservation(env)
        obs, info = text.reset(seed=seed, options={"persona": persona})
        views.append((obs, env.unwrapped._obs().tolist(), None, info, None))
        for a in actions:
            obs, reward, term, trunc, info = text.step(a)
            views.append((obs, env.unwrapped._obs().tolist(), reward, info, None))
            if term or trunc:
                break
        return views
    text = AECTextObservation(env)
    text.reset(seed=seed, options={"persona": persona})
    moves = iter(actions)
    for agent in text.agent_iter(max_iter=40):
        obs, reward, term, trunc, info = text.last()
        if term or trunc:
            text.step(None)
            continue
        if agent == PERSUADER:
            seat = env.unwrapped.seat_view()
            views.append(
                (obs, env.unwrapped.observe(PERSUADER).tolist(), reward, info, (seat.tom_truth(), seat.tom_outcome()))
            )
            text.step(next(moves))
        else:
            text.step(FAITHFUL)
    return views


@pytest.mark.parametrize("env_id", [V1, TWO_SEAT])
def test_two_personas_are_indistinguishable_to_the_persuader_while_their_dialogues_coincide(env_id):
    """Same seed and lines, two forced personas: wherever the replies so far coincide, every value
    returned to the persuader -- observation, text (``TextObservation`` / ``AECTextObservation``),
    reward, info, and what ``seat_view()`` hands the persuadee seat's scorer -- coincides: the persona and
    its state show only through the replies they cause."""
    compared = 0
    for family in FAMILIES:
        a, b = (p.name for p in family.personas[:2])
        for seed in range(24):
            actions = [seed % 6, (seed // 6) % 6, 5, 3]
            va, vb = (_persuader_views(env_id, family.name, p, seed, actions) for p in (a, b))
            for (ta, oa, ra, ia, xa), (tb, ob, rb, ib, xb) in zip(va, vb):
                if oa != ob or "episode" in ia or "episode" in ib:
                    break  # the replies differ (or the episode is over): the dialogue has diverged
                assert (ta, ra, ia, xa) == (tb, rb, ib, xb), (family.name, seed)
                assert a not in ta and family.personas[0].description not in ta
                compared += 1
    assert compared > 80


@pytest.mark.parametrize("env_id", [V1, TWO_SEAT])
@pytest.mark.parametrize("value", ["false", "no", "True", 0, 1, None])
def test_the_oracle_flag_takes_a_bool_only(env_id, value):
    with pytest.raises(InvalidFlag, match="expose_state"):
        tom_envs.make(env_id, expose_state=value)


def test_the_oracle_flag_false_makes_the_env():
    for env_id in (V1, TWO_SEAT):
        assert tom_envs.make(env_id, expose_state=False) is not None
