"""tom_envs.checks.check_env, the conformance suite as one call: it passes a well-made env and names each
broken rule of a broken one (every failure below is planted in an otherwise good env)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

from tests.planted_leaks import CoinAEC, FalseBelief
from tom_envs.checks import ConformanceError, check_env
from tom_envs.errors import InvalidOptions
from tom_envs.tom import ToMSpec


class Guess(gym.Env):
    """Guess a hidden die roll in each of 5 rounds; the roll of the round just played is told afterwards."""

    metadata = {"render_modes": []}

    def __init__(self, broken: str = "") -> None:
        self.broken = broken
        self.observation_space = spaces.Discrete(7)
        self.action_space = spaces.Discrete(6)
        if broken != "no_tom_spec":
            self.tom_spec = ToMSpec(targets={"roll": spaces.Discrete(6)}, outcome=("hits",))
        self._truth, self.hits, self.t = {}, 0, None

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if options is not None and not isinstance(options, dict):
            raise InvalidOptions(f"options are a dict, got {options!r}")
        if options and self.broken != "takes_any_option":
            raise InvalidOptions(f"unknown options {sorted(options)}")
        self.t, self.hits, self._truth = 0, 0, {}
        return 6, {}

    def step(self, action):
        if self.t is None and self.broken != "steps_before_reset":
            raise gym.error.ResetNeeded("call reset() first")
        self.t = self.t or 0
        rng = np.random.default_rng() if self.broken == "unseeded" else self.np_random
        roll = int(rng.integers(6))
        if self.broken == "warns":
            warnings.warn("a step warns", UserWarning)
        self.t += 1
        self.hits += int(action == roll)
        self._truth = {"roll": roll} if self.broken != "bad_truth" else {"dice": roll}
        return roll, float(action == roll), False, self.t >= 5, {}

    def tom_truth(self):
        return dict(self._truth)

    def tom_outcome(self):
        return {"hits": self.hits}


def test_a_well_made_env_passes_every_check():
    report = check_env(lambda: Guess(), information=False)
    assert not report.failed and report.checks["determinism"] == "passed"
    assert report.checks["information_rule"] == "skipped: information=False"
    assert "tom_contract" in str(report)


@pytest.mark.parametrize(
    "broken, check, message",
    [
        ("unseeded", "determinism", "two runs with seed"),
        ("takes_any_option", "reset_options", "must raise tom_envs.errors.InvalidOptions"),
        ("no_tom_spec", "tom_contract", "does not state its literal-ToM targets"),
        ("bad_truth", "tom_contract", "for targets of tom_spec"),
        ("warns", "gymnasium", "a step warns"),
    ],
)
def test_each_broken_rule_is_named(broken, check, message):
    with pytest.raises(ConformanceError, match=f"{check}: .*{message}"):
        check_env(lambda: Guess(broken), information=False)


def test_an_allowed_warning_passes():
    report = check_env(lambda: Guess("warns"), information=False, allow_warnings=("a step warns",))
    assert not report.failed


def test_a_step_before_reset_must_be_refused():
    with pytest.raises(ConformanceError, match="call_order: .*a step before reset"):
        check_env(lambda: Guess("steps_before_reset"), information=False)


class Belief(FalseBelief):
    """tests/planted_leaks.py's false-belief task, made conformant (it refuses options it does not read and a
    step before reset); ``leak`` plants the believer's belief in the info."""

    def reset(self, seed=None, options=None):
        if options is not None and (not isinstance(options, dict) or options):
            raise InvalidOptions(f"this task reads no options, got {options!r}")
        self.started = True
        return super().reset(seed=seed)

    def step(self, action):
        if not getattr(self, "started", False):
            raise gym.error.ResetNeeded("call reset() first")
        return super().step(action)


def test_the_information_rule_is_part_of_it():
    report = check_env(lambda: Belief(), information_options={"episodes": 120})
    assert report.checks["information_rule"] == "passed"
    with pytest.raises(ConformanceError, match="information_rule: InformationLeak"):
        check_env(lambda: Belief(leak=True), information_options={"episodes": 120})


def test_an_aec_env_runs_pettingzoos_checks_and_the_contract():
    report = check_env("tom/Negotiation-Easy-v1", information=False)
    assert {"pettingzoo_api", "pettingzoo_seed", "tom_contract"} <= set(report.checks) and not report.failed
    with pytest.raises(ConformanceError, match="pettingzoo_api: ") as failed:
        check_env(lambda: CoinAEC(), information=False)  # the planted-leak env is no conformant one
    assert "reset_options: " in str(failed.value)
