"""Conformance over the built-in ids: each passes the shipped conformance suite (tom_envs.checks.check_env:
the Gymnasium/SB3 or PettingZoo checkers, call order, determinism, pickling, reset options, the ToM contract),
and the registry's own rules (namespace, retired ids, pinned kwargs, lazy import, the README's table)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import tom_envs
from tests.conftest import make
from tom_envs.checks import check_env
from tom_envs.registration import REGISTRY

#: The ids this project registers (a plugin installed beside it registers its own: checked by its author)
BUILTIN = sorted(i for i, r in REGISTRY.items() if r.builtin)
SINGLE = [i for i in tom_envs.ids(kind="gymnasium") if REGISTRY[i].builtin]
ROOT = Path(__file__).resolve().parents[1]


def test_builtin_ids_are_registered_once_in_the_tom_namespace():
    for env_id in ("tom/RPS-v0", "tom/IBS-v0", "tom/IPD-v0", "tom/MatrixGame-v0"):
        assert env_id in REGISTRY and env_id in gym.registry
    assert all(i.startswith("tom/") for i in REGISTRY)
    assert all(
        getattr(gym.registry[i].entry_point, "target", gym.registry[i].entry_point) == REGISTRY[i].entry_point
        for i in SINGLE
    )


@pytest.mark.parametrize(
    "old, new",
    [
        ("tom/PersuasiveToM-v0", "tom/PersuasiveToM-v1"),
        ("tom/CommonToM-v0", "tom/CommonToM-v2"),
        ("tom/CommonToM-v1", "tom/CommonToM-v2"),
        ("tom/Persuasion-v0", "tom/Persuasion-v1"),
        ("tom/Persuasion-TwoSeat-v0", "tom/Persuasion-TwoSeat-v1"),
    ],
)
def test_a_retired_id_says_what_replaced_it(old, new):
    from tom_envs.errors import UnknownEnvironment

    with pytest.raises(UnknownEnvironment, match=f"no longer registered: use {new}"):
        tom_envs.make(old)
    assert new in REGISTRY and old not in REGISTRY


def test_import_is_lazy():
    code = "import sys, tom_envs; bad = [m for m in ('tom_envs.matrix.env', 'axelrod', 'torch', 'vllm', 'stable_baselines3') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("env_id", BUILTIN)
def test_every_builtin_id_conforms(env_id):
    """The shipped conformance suite (tom_envs.checks.check_env: Gymnasium's and SB3's checkers or PettingZoo's
    api/seed tests, the call order, determinism, pickling mid-episode, the reset-option rule, the ToM contract);
    the information rule has its own tests (tests/test_information_rule.py). A plugin's ids are its author's to
    check (they call check_env in their tests, as tests/plugins/hidden_role does)."""
    report = check_env(env_id, information=False)
    assert not report.failed


@pytest.mark.parametrize("env_id", [i for i in SINGLE if REGISTRY[i].family == "matrix"])
def test_different_seeds_meet_different_partners(env_id):
    env = make(env_id)  # the drawn partner is hidden state: read it from the env, not from info
    partners = set()
    for s in range(30):
        env.reset(seed=s)
        partners.add(env.unwrapped.partner.name)
    assert len(partners) > 1


def test_readme_table_is_generated_from_the_registry():
    from benchmarks.__main__ import readme_section

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_section() in readme, "README's id table is stale: run `make readme`"


@pytest.mark.parametrize("env_id", [i for i in BUILTIN if REGISTRY[i].kind in ("aec", "parallel")])
def test_gymnasium_make_of_a_pettingzoo_id_says_how_to_make_it(env_id):
    with pytest.raises(tom_envs.errors.UnknownEnvironment, match=r"PettingZoo .* make it with tom_envs\.make"):
        gym.make(env_id)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: gym.make("tom/RPS-v0", game="IPD"), "make 'tom/IPD-v0' instead"),
        (lambda: tom_envs.make("tom/RPS-v0", game="IPD"), "make 'tom/IPD-v0' instead"),
        (
            lambda: gym.make_vec("tom/IPD-v0", num_envs=2, vectorization_mode="vector_entry_point", game="RPS"),
            "make 'tom/RPS-v0' instead",
        ),
        (
            lambda: tom_envs.make("tom/IBS-Parallel-v0", game="Chicken"),
            "make 'tom/MatrixGame-Parallel-v0' with game=...",
        ),
        (
            lambda: tom_envs.make_aec("tom/Negotiation-Easy-v1", difficulty="hard"),
            "make 'tom/Negotiation-Hard-v1' instead",
        ),
    ],
)
def test_a_kwarg_that_contradicts_the_id_is_a_named_error_naming_the_id_to_make(make, message):
    from tom_envs.errors import ContradictoryKwargs

    with pytest.raises(ContradictoryKwargs, match=re.escape(message)):
        make()


def test_pinned_kwargs_may_be_repeated_and_other_defaults_changed():
    assert gym.make("tom/RPS-v0", game="RPS").unwrapped.game.name == "RPS"
    assert gym.make("tom/IPD-v0", render_mode="ansi").render_mode == "ansi"  # the creator exposes the class metadata
    assert tom_envs.make("tom/CommonToM-v2", split="train").unwrapped.split == "train"  # a default, not pinned
