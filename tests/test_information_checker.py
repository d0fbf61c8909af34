"""The public information-rule checker (:func:`tom_envs.checks.check_information_rule`) over the registry.

Every registered id is played the way cheating policies would play it, three ways: bare, wrapped
exactly as the benchmark runner wraps it (:func:`benchmarks.runner.make_env`: the ToM recorder), and
wrapped in the documented scoring and text wrappers on top (``TextObservation`` /
``AECTextObservation``, ``JSONLEpisodeLog``). No probe may find a leak. Planted leaks -- the recorder
behaviour this issue removed, and the documented oracle flags -- must be found, so the checker can fail.
"""

from __future__ import annotations

import inspect
import os

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.utils.wrappers import BaseWrapper

import tom_envs
import wrappers
from benchmarks.runner import make_env
from tom_envs.checks import InformationLeak, InformationReport, check_information_rule, make_any
from tom_envs.errors import InvalidFlag
from tom_envs.registration import REGISTRY, load

WRAPPINGS = ["bare", "runner", "documented"]


def _kwargs(env_id: str) -> dict:
    """The registry's example arguments; dataset envs widened to their whole bundled sample."""
    rec = REGISTRY[env_id]
    kwargs = {**rec.kwargs, **rec.example_kwargs}
    if "split" in inspect.signature(load(rec.entry_point)).parameters:
        kwargs["split"] = "all"
    return kwargs


def wrapped(env_id: str, wrapping: str, tmp_path=None, **overrides):
    kwargs = {**_kwargs(env_id), **overrides}
    if wrapping == "bare":
        return make_any(env_id, **kwargs)
    env = make_env(env_id, **kwargs)
    if wrapping == "documented":
        if REGISTRY[env_id].kind == "gymnasium":
            env = wrappers.JSONLEpisodeLog(env, tmp_path / "log.jsonl")
        elif callable(getattr(env.unwrapped, "text", None)):
            env = wrappers.AECTextObservation(env)
    return env


def probe_settings(env_id: str) -> dict:
    """The checker settings its family declares (``Family.probe``; none for an undeclared family)."""
    from tom_envs.family import FamilyError, family

    try:
        return dict(family(REGISTRY[env_id].family).probe)
    except FamilyError:
        return {}


@pytest.mark.parametrize("wrapping", WRAPPINGS)
@pytest.mark.parametrize("env_id", list(REGISTRY))
def test_no_probe_finds_a_leak(env_id, wrapping, tmp_path):
    settings = probe_settings(env_id)
    report = check_information_rule(wrapped(env_id, wrapping, tmp_path), strict=False, **settings)
    assert isinstance(report, InformationReport) and report.results
    assert report.ok, str(report)
    if report.verdict == "no power":  # the default size (the family's, else the checker's 40) has none: 3x it
        settings["episodes"] = 3 * settings.get("episodes", 40)
        report = check_information_rule(wrapped(env_id, wrapping, tmp_path), strict=False, **settings)
        assert report.ok, str(report)
    assert report.powered and report.verdict == "no leak", str(report)  # every target's planted control was caught


# ---------------------------------------------------------------------- planted leaks
class RecorderOfOld(gym.Wrapper):
    """What ToMRecorder did before the scorer went out of band: the step's truths in ``info["tom"]``."""

    def step(self, action):
        obs, reward, term, trunc, info = self.env.step(action)
        return obs, reward, term, trunc, {**info, "tom": dict(self.env.unwrapped.tom_truth())}


class AECRecorderOfOld(BaseWrapper):
    """What AECToMRecorder did: the latest record in the info of the seat's ``last()``."""

    def reset(self, seed=None, options=None):
        self.held = {}
        self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.env.step(action)
        self.held = self.env.unwrapped.tom_truth() or self.held

    def last(self, observe=True):
        obs, reward, term, trunc, info = self.env.last(observe)
        return obs, reward, term, trunc, {**info, "tom": self.held}


def test_the_checker_finds_the_old_recorder_on_live_persuasion():
    env = RecorderOfOld(tom_envs.make("tom/Persuasion-v1"))
    with pytest.raises(InformationLeak, match="info.tom"):
        check_information_rule(env, episodes=120)


def test_the_checker_finds_the_old_aec_recorder_on_the_two_seat_persuader():
    env = AECRecorderOfOld(tom_envs.make_aec("tom/Persuasion-TwoSeat-v1"))
    report = check_information_rule(env, episodes=60, strict=False)
    assert any("info.tom.desire" in s for s in report.leaks), str(report)


def test_the_checker_finds_answers_exposed_by_the_oracle_flag():
    report = check_information_rule("tom/PersuasiveToM-v1", expose_labels=True, strict=False)
    tables = report.result("tables", "answer")
    assert tables.score == 1.0 and not report.ok, str(report)


def test_the_checker_finds_the_partner_action_exposed_by_the_oracle_flag():
    report = check_information_rule("tom/IPD-v0", expose_partner_action=True, strict=False)
    assert any(s.startswith("info.partner_next_action equals the partner_action") for s in report.leaks), str(report)


def test_a_leak_is_a_named_error_that_says_what_leaked():
    with pytest.raises(InformationLeak) as err:
        check_information_rule("tom/IPD-v0", expose_partner_action=True)
    assert "partner_next_action" in str(err.value) and "contract 4" in str(err.value)


def test_bad_checker_arguments_are_named_errors():
    with pytest.raises(tom_envs.errors.TomEnvsError, match="unit is"):
        check_information_rule("tom/IPD-v0", unit="sentence")
    with pytest.raises(tom_envs.errors.TomEnvsError, match="only with a registered id"):
        check_information_rule(tom_envs.make("tom/IPD-v0"), horizon=3)


# ---------------------------------------------------------------------- strict flags
def _flags() -> list[tuple[str, str]]:
    out = []
    for env_id, rec in REGISTRY.items():
        params = inspect.signature(load(rec.entry_point)).parameters
        out += [
            (env_id, name) for name, p in params.items() if name.startswith("expose_") or isinstance(p.default, bool)
        ]
    return out


@pytest.mark.parametrize("env_id, flag", _flags())
@pytest.mark.parametrize("bad", ["false", "no", 0, 1, None])
def test_every_boolean_option_takes_a_bool_only(env_id, flag, bad):
    with pytest.raises(InvalidFlag, match=flag):
        wrapped(env_id, "bare", **{flag: bad})


# ---------------------------------------------------------------------- the real releases
COMMON_TOM = os.environ.get("TOM_ENVS_COMMON_TOM_RELEASE")


@pytest.mark.skipif(not COMMON_TOM, reason="set TOM_ENVS_COMMON_TOM_RELEASE to the release's data/ folder")
@pytest.mark.filterwarnings(
    "ignore:.*no Event text:UserWarning"
)  # the release's known quirk, kept as its generator does
@pytest.mark.parametrize("wrapping", ["bare", "runner"])
def test_the_checker_finds_no_leak_on_the_common_tom_release_test_split(wrapping):
    """Held-out sentences (every question of an event's group is asked at its sentence, so no group is
    split between the halves); the gain over the question-only probe stays within 2 points."""
    env = wrapped("tom/CommonToM-v2", wrapping, data_dir=COMMON_TOM, split="test")
    report = check_information_rule(env, repeats=1, unit="turn", strict=False)
    print(report)
    tables = report.result("tables", "answer")
    assert tables.n_test > 100 and tables.gain <= 0.02 and report.verdict == "no leak", str(
        report
    )  # release-sized: its control is caught


def test_a_numpy_bool_is_a_bool():
    import numpy as np

    from tom_envs.errors import require_bool

    assert require_bool("expose_labels", np.bool_(True)) is True and require_bool("expose_labels", np.False_) is False


PERSUASION = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")


@pytest.mark.skipif(not PERSUASION, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of Yu-Fangxu/PersuasiveToM")
@pytest.mark.parametrize("qtypes", ["desire_ee", "intent_ee"])
def test_the_checker_finds_no_leak_on_the_persuasive_tom_release(qtypes):
    """Held-out dialogues: a persuadee's answers persist from turn to turn (66.5 % of consecutive desire_ee
    answers repeat), so a turn unit would let a table keyed on the dialogue learn the labels."""
    from pathlib import Path

    data = Path(PERSUASION) / "data"
    if not (data / f"{qtypes}.json").is_file():
        pytest.skip(f"{qtypes}.json is not in the release folder")
    for wrapping in ("bare", "runner"):
        env = wrapped("tom/PersuasiveToM-v1", wrapping, data_dir=data, qtypes=qtypes)
        report = check_information_rule(env, repeats=1, unit="episode", strict=False)
        print(report)
        assert report.result("tables", "answer").n_test > 100 and report.verdict == "no leak", str(report)


PROMEDIATE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")


@pytest.mark.skipif(not PROMEDIATE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
@pytest.mark.parametrize("case", ["hmo", "flagship", "river", "ias", "williams", "francis"])
def test_the_checker_finds_no_leak_at_the_mediator_seat_of_a_released_case(case):
    """Every released case, wrapped as the runner wraps it (the counterfactual tests of
    tests/test_negotiation_information.py change each party's hidden first choice; this one reads
    everything the mediator gets, with memory and counts)."""
    from pathlib import Path

    from tom_envs.negotiation.scenario import Scenario

    scenario = Scenario.from_file(Path(PROMEDIATE) / "cases" / f"{case}.json")
    settings = probe_settings("tom/Negotiation-v1")
    report = check_information_rule(make_env("tom/Negotiation-v1", scenario=scenario), strict=False, **settings)
    print(report)
    assert report.verdict == "no leak", str(report)


def counted_questions_env(ordered: bool):
    """A QA env whose turns ask the same question text four times; with ``ordered``, the answers follow
    the position in the turn (yes, yes, no, no: the pattern of the release's down-sampled Common-ToM
    groups), without it they are random."""
    import numpy as np

    from tom_envs.qa import QAEnv, QAItem

    rng = np.random.default_rng(3)
    episodes = []
    for d in range(30):
        items, context = [], ""
        for t in range(8):
            context += f"A: line {t} of talk {d}.\n"
            answers = (1, 1, 0, 0) if ordered else tuple(int(a) for a in rng.integers(2, size=4))
            items += [
                QAItem(
                    episode_id=str(d),
                    turn=t,
                    context=context,
                    question="Does A think so?",
                    choices=("no", "yes"),
                    answer=a,
                    qtype="yn",
                )
                for a in answers
            ]
        episodes.append(items)
    return QAEnv(episodes, qtypes=["yn"])


@pytest.mark.parametrize("ordered", [True, False])
def test_the_checker_counts_questions(ordered):
    """Counting is a leak the checker must see: a question's position among those shown at its turn
    (``run.turn``, ``seen.*``) gives the answer away when positions encode labels, and nothing otherwise."""
    report = check_information_rule(counted_questions_env(ordered), repeats=2, strict=False)
    assert report.ok is not ordered, str(report)


class SlowWhenDesiring(gym.Wrapper):
    """A planted timing leak: the step takes 20 ms longer when the persuadee's hidden desire is the first one."""

    def step(self, action):
        out = self.env.step(action)
        if self.env.unwrapped.tom_truth().get("desire") == 0:
            import time

            time.sleep(0.02)
        return out


def test_the_checker_reads_timing_when_asked():
    report = check_information_rule(
        SlowWhenDesiring(tom_envs.make("tom/Persuasion-v1")), episodes=120, timing=True, strict=False
    )
    assert any("'time'" in s and "desire" in s for s in report.leaks), str(report)
    quiet = check_information_rule(SlowWhenDesiring(tom_envs.make("tom/Persuasion-v1")), episodes=120, strict=False)
    assert quiet.ok, str(quiet)  # without timing=True the clock is not read


# ---------------------------------------------------------------------- wrappers that re-encode the observation
class AppendNextAction(gym.ObservationWrapper):
    """A wrapper that really leaks: the partner's coming action appended to the (vector) observation."""

    def __init__(self, env):
        super().__init__(env)
        low, high = env.observation_space.low, env.observation_space.high
        self.observation_space = gym.spaces.Box(
            np.append(low, 0).astype(np.float32), np.append(high, 9).astype(np.float32)
        )

    def observation(self, obs):
        base = self.env.unwrapped
        upcoming = base._upcoming() if base.round < base.horizon else 0
        return np.append(obs, np.float32(upcoming))


@pytest.mark.parametrize("env_id", ["tom/IPD-v0", "tom/IBS-v0", "tom/RPS-v0"])
def test_a_vectorized_env_is_judged_on_its_own_observation(env_id):
    """VectorizeObservation's one-hot of the last joint action holds nothing the env did not show."""
    env = wrappers.ToMRecorder(wrappers.VectorizeObservation(gym.make(env_id)))
    report = check_information_rule(env, strict=False)
    assert report.ok, str(report)
    assert "step" not in vars(env.unwrapped) and "reset" not in vars(env.unwrapped)  # the checker's tap is gone


@pytest.mark.parametrize("env_id", ["tom/IPD-v0", "tom/RPS-v0"])
def test_a_wrapper_that_appends_the_hidden_truth_is_still_caught(env_id):
    env = AppendNextAction(wrappers.VectorizeObservation(gym.make(env_id)))
    report = check_information_rule(env, strict=False)
    last = env.observation_space.shape[0] - 1
    assert any(s.startswith(f"obs[{last}] equals the partner_action resolved 0 step(s)") for s in report.leaks), str(
        report
    )
