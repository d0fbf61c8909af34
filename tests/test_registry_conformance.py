"""Conformance over the whole registry: every single-agent id passes the Gymnasium and SB3
checkers, is deterministic under a seed, and survives a pickle round trip."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import tom_envs
from tests.conftest import _plain, make, rollout
from tom_envs.registration import REGISTRY

SINGLE = tom_envs.ids(kind="gymnasium")
ROOT = Path(__file__).resolve().parents[1]


def test_builtin_ids_are_registered_once_in_the_tom_namespace():
    for env_id in ("tom/RPS-v0", "tom/IBS-v0", "tom/IPD-v0", "tom/MatrixGame-v0"):
        assert env_id in REGISTRY and env_id in gym.registry
    assert all(i.startswith("tom/") for i in REGISTRY)
    assert all(getattr(gym.registry[i].entry_point, "target", gym.registry[i].entry_point) == REGISTRY[i].entry_point
               for i in SINGLE)


@pytest.mark.parametrize("old, new", [("tom/PersuasiveToM-v0", "tom/PersuasiveToM-v1"),
                                      ("tom/CommonToM-v0", "tom/CommonToM-v2"), ("tom/CommonToM-v1", "tom/CommonToM-v2"),
                                      ("tom/Persuasion-v0", "tom/Persuasion-v1"),
                                      ("tom/Persuasion-TwoSeat-v0", "tom/Persuasion-TwoSeat-v1")])
def test_a_retired_id_says_what_replaced_it(old, new):
    from tom_envs.errors import UnknownEnvironment

    with pytest.raises(UnknownEnvironment, match=f"no longer registered: use {new}"):
        tom_envs.make(old)
    assert new in REGISTRY and old not in REGISTRY


def test_import_is_lazy():
    code = "import sys, tom_envs; bad = [m for m in ('tom_envs.matrix.env', 'axelrod', 'torch', 'vllm', 'stable_baselines3') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("env_id", SINGLE)
def test_gymnasium_check_env(env_id):
    env = make(env_id)  # (Gymnasium notes it when a newer version of the id exists: v1 ids stay on purpose)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("env_id", [i for i in SINGLE if REGISTRY[i].sb3])
def test_sb3_check_env(env_id):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(env.unwrapped, warn=True)


@pytest.mark.parametrize("env_id", SINGLE)
def test_call_order_is_enforced_by_make_or_by_the_env(env_id):
    """Self-checked ids skip OrderEnforcing in make, so the env itself must raise."""
    env = make(env_id)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(env.action_space.sample())
    if REGISTRY[env_id].self_checked:
        env.reset(seed=0)
        env.action_space.seed(0)
        terminated = truncated = False
        for _ in range(100_000):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                break
        assert terminated or truncated
        with pytest.raises(tom_envs.errors.EpisodeEnded):
            env.step(env.action_space.sample())


@pytest.mark.parametrize("env_id", SINGLE)
def test_same_seed_same_trajectory(env_id):
    assert rollout(make(env_id), seed=7) == rollout(make(env_id), seed=7)


@pytest.mark.parametrize("env_id", tom_envs.ids(kind="gymnasium", family="matrix"))
def test_different_seeds_meet_different_partners(env_id):
    env = make(env_id)  # the drawn partner is hidden state: read it from the env, not from info
    partners = set()
    for s in range(30):
        env.reset(seed=s)
        partners.add(env.unwrapped.partner.name)
    assert len(partners) > 1


@pytest.mark.parametrize("env_id", SINGLE)
def test_pickle_round_trip_mid_episode(env_id):
    env = make(env_id)
    env.reset(seed=3)
    env.action_space.seed(3)
    actions = [env.action_space.sample() for _ in range(8)]
    for a in actions[:3]:
        if any(env.step(a)[2:4]):
            env.reset()
    clone = pickle.loads(pickle.dumps(env))
    for a in actions[3:]:
        mine, theirs = env.step(a), clone.step(a)
        assert _plain(mine) == _plain(theirs)
        if any(mine[2:4]):
            assert _plain(env.reset()) == _plain(clone.reset())


def test_readme_table_is_generated_from_the_registry():
    from benchmarks.__main__ import readme_section

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_section() in readme, "README's id table is stale: run `make readme`"


@pytest.mark.parametrize("env_id", tom_envs.ids(kind="aec"))
def test_pettingzoo_aec_conformance(env_id):
    import warnings as _w

    with _w.catch_warnings():  # pettingzoo.test imports a deprecated classic env at import time
        _w.filterwarnings("ignore", category=DeprecationWarning)
        from pettingzoo.test import api_test, seed_test
    api_test(tom_envs.make_aec(env_id, **REGISTRY[env_id].example_kwargs), num_cycles=50)
    seed_test(lambda: tom_envs.make_aec(env_id, **REGISTRY[env_id].example_kwargs), num_cycles=50)


@pytest.mark.parametrize("env_id", tom_envs.ids(kind="aec") + tom_envs.ids(kind="parallel"))
def test_gymnasium_make_of_a_pettingzoo_id_says_how_to_make_it(env_id):
    with pytest.raises(tom_envs.errors.UnknownEnvironment, match=r"PettingZoo .* make it with tom_envs\.make"):
        gym.make(env_id)


@pytest.mark.parametrize("make, message", [
    (lambda: gym.make("tom/RPS-v0", game="IPD"), "make 'tom/IPD-v0' instead"),
    (lambda: tom_envs.make("tom/RPS-v0", game="IPD"), "make 'tom/IPD-v0' instead"),
    (lambda: gym.make_vec("tom/IPD-v0", num_envs=2, vectorization_mode="vector_entry_point", game="RPS"),
     "make 'tom/RPS-v0' instead"),
    (lambda: tom_envs.make("tom/IBS-Parallel-v0", game="Chicken"), "make 'tom/MatrixGame-Parallel-v0' with game=..."),
    (lambda: tom_envs.make_aec("tom/Negotiation-Easy-v1", difficulty="hard"), "make 'tom/Negotiation-Hard-v1' instead"),
])
def test_a_kwarg_that_contradicts_the_id_is_a_named_error_naming_the_id_to_make(make, message):
    from tom_envs.errors import ContradictoryKwargs

    with pytest.raises(ContradictoryKwargs, match=re.escape(message)):
        make()


def test_pinned_kwargs_may_be_repeated_and_other_defaults_changed():
    assert gym.make("tom/RPS-v0", game="RPS").unwrapped.game.name == "RPS"
    assert gym.make("tom/IPD-v0", render_mode="ansi").render_mode == "ansi"  # the creator exposes the class metadata
    assert tom_envs.make("tom/CommonToM-v2", split="train").unwrapped.split == "train"  # a default, not pinned


@pytest.mark.parametrize("env_id", sorted(REGISTRY))
def test_every_env_names_a_misspelt_or_non_dict_reset_option(env_id):
    """A reset option an env does not read would be ignored silently: every id names it instead."""
    from tom_envs.errors import InvalidOptions

    rec = REGISTRY[env_id]
    env = tom_envs.make(env_id, **rec.example_kwargs)
    if rec.kind == "parallel":
        pytest.skip("parallel matrix envs read no options and accept PettingZoo's probe keys (test_parallel_env)")
    for options in ({"no_such_option": 1}, "episode=0"):
        with pytest.raises(InvalidOptions):
            env.reset(seed=0, options=options)
    env.reset(seed=0, options={})  # an empty dict is no option at all
