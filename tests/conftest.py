"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

# one policy entropy for the whole session (and the commands it starts): two runs of a stochastic policy compare
# equal, as two runs of a user who pins it do (benchmarks.policy_seeds)
os.environ.setdefault("TOM_ENVS_POLICY_ENTROPY", "0x7E57")

# a release clone given by a relative path means the folder it names from where pytest starts: made absolute
# here, before any test reads it, so tests that change folder (or start commands elsewhere) find it too
for _var in ("TOM_ENVS_PERSUASION_RELEASE", "TOM_ENVS_COMMON_TOM_RELEASE", "TOM_ENVS_PROMEDIATE_RELEASE"):
    if os.environ.get(_var):
        os.environ[_var] = os.path.abspath(os.path.expanduser(os.environ[_var]))

import tom_envs  # noqa: F401  (registers the ids)
from tom_envs.registration import REGISTRY


def make_kwargs(env_id: str) -> dict:
    """Arguments needed to make a registered id (e.g. the example game of MatrixGame-v0)."""
    return dict(REGISTRY[env_id].example_kwargs)


def make(env_id: str, **kwargs) -> gym.Env:
    return gym.make(env_id, **{**make_kwargs(env_id), **kwargs})


@pytest.fixture(params=["RPS", "IBS", "IPD"])
def game_name(request) -> str:
    return request.param


# ------------------------------------------------------------------------------ parallel runs (pytest-xdist)
# `make test` runs the suite on every core (`pytest -n auto --dist loadgroup`). A worker is a process, so a
# shared engine is one per worker that uses it: the tests of one file go to one worker (its module fixtures,
# e.g. the real model's engine, start once), and every test on the tiny model's in-process engine or server
# (tests/llm/conftest.py, package scope) goes to one worker, so that engine and server start once.
# (also asked for by name through `request.getfixturevalue(which)`, `which` a parameter: read the parameters too)
TINY_ENGINE_FIXTURES = {"vllm_backend", "openai_server", "server_backend"}


# The longest groups are handed out first (`make test` passes --no-loadscope-reorder: xdist would otherwise order
# groups by their number of tests, and the real model's seven long tests started last, on one worker, alone).
LONGEST_FIRST = (
    "tests/llm/test_real_model.py",
    "tiny-engine",
    "tests/llm/test_real_model_harnesses.py",
    "tests/llm/test_second_model.py",
    "tests/test_benchmarks.py",
    "tests/test_information_checker.py",
    "tests/test_models.py",
    "docs-real-model",
    "docs-tiny-model",
)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            names |= {v for v in callspec.params.values() if isinstance(v, str)}
        group = "tiny-engine" if TINY_ENGINE_FIXTURES & names else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))

    def rank(item: pytest.Item) -> int:
        group = item.get_closest_marker("xdist_group").args[0]
        return LONGEST_FIRST.index(group) if group in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: within a group, and for the rest, the collection order
