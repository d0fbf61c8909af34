"""The conformance suite as a library function: :func:`check_env`, for the built-in ids and a plugin's alike.

Like Gymnasium's ``env_checker.check_env`` and PettingZoo's ``api_test``, :func:`check_env` runs small named
checks over one env and raises on what fails; unlike them it covers what the suite adds (the ToM contract, the
reset-option rule, the call order, determinism under a seed, pickling mid-episode) and, with
``information=True`` (the default), the information rule (:func:`tom_envs.checks.check_information_rule`).
A plugin author calls it in their own tests::

    from tom_envs.checks import check_env

    def test_my_env_conforms():
        check_env("tom/HiddenRole-v0")

Checks per kind of env (a registered id's kind, else what the object is):

* single-agent (Gymnasium): ``gymnasium`` (Gymnasium's checker, render check included), ``sb3``
  (stable-baselines3's checker, where it is installed and the id declares spaces SB3 accepts), ``call_order``
  (a step before reset raises ``ResetNeeded``; a self-checked id raises ``EpisodeEnded`` after the end),
  ``determinism`` (the same seed and actions give the same trajectory), ``pickle`` (a pickled copy mid-episode
  goes on exactly as the original), ``reset_options``, ``tom_contract``, ``information_rule``;
* PettingZoo AEC: ``pettingzoo_api``, ``pettingzoo_seed``, ``reset_options``, ``tom_contract``,
  ``information_rule``;
* PettingZoo parallel: ``pettingzoo_parallel_api``, ``pettingzoo_parallel_seed``.

Warnings raised inside a check are failures, except those matching ``allow_warnings`` (regular expressions
of the message; :data:`ALLOWED_WARNINGS` by default: third-party deprecations no env can fix).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import pickle
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError

#: Warnings a check lets pass by default (regular expressions matched against the message).
ALLOWED_WARNINGS: tuple[str, ...] = (
    r".*is out of date\. You should consider upgrading",  # Gymnasium: a newer version of the id exists
    r".*pkg_resources is deprecated",  # third-party imports
)

#: How many random steps the single-agent trajectory checks play (across episode ends).
STEPS = 250


class ConformanceError(TomEnvsError, AssertionError):
    """An env fails :func:`check_env`; the message lists every failed check and why."""


@dataclass
class ConformanceReport:
    """What :func:`check_env` ran: per check, ``"passed"``, ``"skipped: why"`` or ``"failed: why"``."""

    env: str
    kind: str
    checks: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> dict[str, str]:
        return {k: v for k, v in self.checks.items() if v.startswith("failed")}

    def __str__(self) -> str:
        width = max((len(k) for k in self.checks), default=0)
        return "\n".join(
            [f"conformance of {self.env} ({self.kind})", *(f"  {k:<{width}}  {v}" for k, v in self.checks.items())]
        )


def check_env(
    env: str | Callable[[], Any] | Any,
    *,
    kwargs: Mapping[str, Any] | None = None,
    allow_warnings: Sequence[str] = ALLOWED_WARNINGS,
    information: bool = True,
    information_options: Mapping[str, Any] | None = None,
    sb3: bool | None = None,
    seed: int = 7,
) -> ConformanceReport:
    """Run the conformance checks on ``env``: a registered id (made with its ``example_kwargs`` and ``kwargs``),
    or a zero-argument factory of the env (an env object is accepted too; checks that need fresh copies then use
    deep copies of it).

    Args:
        allow_warnings: regular expressions of warning messages that do not fail a check.
        information: also run the information-rule checker (slower: it plays many episodes).
        information_options: keyword arguments of :func:`~tom_envs.checks.check_information_rule` (``episodes``,
            ``declare``, ...); None: for an id, its family's ``Family.probe`` settings.
        sb3: run stable-baselines3's checker (None: where it is installed and, for an id, its record says SB3
            accepts its spaces).
        seed: the seed of the trajectory checks.

    Returns:
        The :class:`ConformanceReport` (every check passed or skipped).

    Raises:
        ConformanceError: a check failed (the message lists each failed check and why).
    """
    factory, name, record = _factory(env, dict(kwargs or {}))
    with warnings.catch_warnings():
        for pattern in allow_warnings:
            warnings.filterwarnings("ignore", message=pattern)
        kind = _kind(factory(), record)
    report = ConformanceReport(name, kind)
    checks: list[tuple[str, Callable[[], str | None]]]
    if kind == "gymnasium":
        want_sb3 = (record.sb3 if record is not None else True) if sb3 is None else sb3
        checks = [
            ("gymnasium", lambda: _gymnasium(factory)),
            ("sb3", lambda: _sb3(factory, want_sb3)),
            ("call_order", lambda: _call_order(factory, record)),
            ("determinism", lambda: _determinism(factory, seed)),
            ("pickle", lambda: _pickle(factory, seed)),
            ("reset_options", lambda: _reset_options(factory)),
            ("tom_contract", lambda: _tom_contract_gym(factory, seed)),
        ]
    elif kind == "aec":
        checks = [
            ("pettingzoo_api", lambda: _pz_api(factory, seed)),
            ("pettingzoo_seed", lambda: _pz_seed(factory)),
            ("reset_options", lambda: _reset_options(factory)),
            ("tom_contract", lambda: _tom_contract_aec(factory, seed)),
        ]
    else:
        checks = [
            ("pettingzoo_parallel_api", lambda: _pz_parallel_api(factory, seed)),
            ("pettingzoo_parallel_seed", lambda: _pz_parallel_seed(factory)),
        ]
    if kind != "parallel":
        options = _probe_options(record) if information_options is None else dict(information_options)
        checks.append(
            (
                "information_rule",
                lambda: _information(
                    env if isinstance(env, str) else factory, {**options, **dict(kwargs or {})}, information
                ),
            )
        )
    for check, run in checks:
        report.checks[check] = _run(run, allow_warnings)
    if report.failed:
        raise ConformanceError(
            f"{name} fails {len(report.failed)} conformance check(s):\n"
            + "\n".join(f"  {k}: {v.removeprefix('failed: ')}" for k, v in report.failed.items())
        )
    return report


# ---------------------------------------------------------------------- plumbing
def _factory(env: Any, kwargs: dict[str, Any]) -> tuple[Callable[[], Any], str, Any]:
    if isinstance(env, str):
        from tom_envs.registration import record

        rec = record(env)
        made = {**rec.example_kwargs, **kwargs}
        if rec.kind == "gymnasium":
            import gymnasium as gym

            return (lambda: gym.make(env, **made)), env, rec
        from tom_envs.registration import make

        return (lambda: make(env, **made)), env, rec
    if kwargs:
        raise TomEnvsError("check_env takes kwargs only with a registered id; build the env in a factory instead")
    if callable(env) and not hasattr(env, "reset"):
        return env, getattr(env, "__name__", type(env).__name__), None
    template = copy.deepcopy(env)
    return (lambda: copy.deepcopy(template)), type(getattr(env, "unwrapped", env)).__name__, None


def _kind(env: Any, record: Any) -> str:
    if record is not None:
        return record.kind
    if hasattr(env, "agent_iter"):
        return "aec"
    if hasattr(env, "possible_agents"):
        return "parallel"
    return "gymnasium"


def _run(check: Callable[[], str | None], allow: Sequence[str]) -> str:
    """``"passed"``, ``"skipped: ..."`` (the check returned why), or ``"failed: ..."`` (it raised, or warned)."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # the checkers' chatter
        warnings.simplefilter("error")
        for pattern in allow:
            warnings.filterwarnings("ignore", message=pattern)
        try:
            skipped = check()
        except Exception as exc:  # noqa: BLE001  every failure becomes a line of the report
            return f"failed: {type(exc).__name__}: {exc}".splitlines()[0][:400]
    return f"skipped: {skipped}" if skipped else "passed"


def comparable(x: Any) -> Any:
    """A form of observations, rewards and infos that compares by value (arrays, numpy scalars, dataclasses and
    plain objects by their contents), for the trajectory checks."""
    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {k: comparable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(comparable(v) for v in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, {f.name: comparable(getattr(x, f.name)) for f in dataclasses.fields(x)})
    if isinstance(x, (str, int, float, bool, type(None))):
        return x
    return (type(x).__name__, comparable(vars(x)) if hasattr(x, "__dict__") else repr(x))


def _rollout(env: Any, seed: int, steps: int = STEPS) -> list[Any]:
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    out = [("reset", comparable(obs), comparable(info))]
    for _ in range(steps):
        action = env.action_space.sample()
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((comparable(action), comparable(obs), float(reward), terminated, truncated, comparable(info)))
        if terminated or truncated:
            obs, info = env.reset()
            out.append(("reset", comparable(obs), comparable(info)))
    return out


# ---------------------------------------------------------------------- single-agent checks
def _gymnasium(factory: Callable[[], Any]) -> None:
    from gymnasium.utils.env_checker import check_env as gymnasium_check

    env = factory()
    # Gymnasium checks the render modes of an env made from a spec (a registered id); a bare env has none
    gymnasium_check(env.unwrapped, skip_render_check=env.unwrapped.spec is None)


def _sb3(factory: Callable[[], Any], wanted: bool) -> str | None:
    if not wanted:
        return "its spaces are not ones stable-baselines3 takes (EnvRecord.sb3=False)"
    try:
        from stable_baselines3.common.env_checker import check_env as sb3_check
    except ImportError:
        return "stable-baselines3 is not installed"
    sb3_check(factory().unwrapped, warn=True)
    return None


def _call_order(factory: Callable[[], Any], record: Any) -> None:
    import gymnasium as gym

    from tom_envs.errors import EpisodeEnded

    env = factory()
    try:
        env.step(env.action_space.sample())
    except gym.error.ResetNeeded:
        pass
    else:
        raise AssertionError(
            "a step before reset() went through; raise gymnasium.error.ResetNeeded (or register "
            "the id without self_checked=True, so that gymnasium.make adds OrderEnforcing)"
        )
    if record is None or not record.self_checked:
        return
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(100_000):
        if any(env.step(env.action_space.sample())[2:4]):
            break
    else:
        raise AssertionError("no episode end within 100,000 random steps")
    try:
        env.step(env.action_space.sample())
    except EpisodeEnded:
        return
    raise AssertionError("a step after the episode's end went through; a self-checked env raises EpisodeEnded")


def _determinism(factory: Callable[[], Any], seed: int) -> None:
    if _rollout(factory(), seed) != _rollout(factory(), seed):
        raise AssertionError(
            f"two runs with seed {seed} and the same actions differ (all randomness must come from reset(seed=...))"
        )


def _pickle(factory: Callable[[], Any], seed: int) -> None:
    env = factory()
    env.reset(seed=seed)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(8)]
    for a in actions[:3]:
        if any(env.step(a)[2:4]):
            env.reset()
    clone = pickle.loads(pickle.dumps(env))
    for a in actions[3:]:
        mine, theirs = env.step(a), clone.step(a)
        if comparable(mine) != comparable(theirs):
            raise AssertionError("a pickled copy taken mid-episode goes on differently from the original")
        if any(mine[2:4]) and comparable(env.reset()) != comparable(clone.reset()):
            raise AssertionError("a pickled copy resets differently from the original")


def _reset_options(factory: Callable[[], Any]) -> None:
    from tom_envs.errors import InvalidOptions

    env = factory()
    for options in ({"no_such_option": 1}, "episode=0"):
        try:
            env.reset(seed=0, options=options)
        except InvalidOptions:
            continue
        raise AssertionError(
            f"reset(options={options!r}) was accepted; an option the env does not read, or "
            "options that are not a dict, must raise tom_envs.errors.InvalidOptions"
        )
    env.reset(seed=0, options={})  # an empty dict is no option at all


def _check_truth(spec: Any, truth: Any, outcome: Any) -> None:
    if not isinstance(truth, Mapping) or not set(truth) <= set(spec.targets):
        raise AssertionError(
            f"tom_truth() returned {truth!r}; it returns {{target: value}} for targets of "
            f"tom_spec ({', '.join(spec.targets)})"
        )
    if not isinstance(outcome, Mapping):
        raise AssertionError(f"tom_outcome() returned {type(outcome).__name__}; it returns {{name: value}}")


def _tom_contract_gym(factory: Callable[[], Any], seed: int) -> None:
    from tom_envs.tom import tom_spec_of

    env = factory()
    spec = tom_spec_of(env)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(STEPS):
        done = any(env.step(env.action_space.sample())[2:4])
        _check_truth(spec, env.unwrapped.tom_truth(), env.unwrapped.tom_outcome())
        if done:
            return


# ---------------------------------------------------------------------- PettingZoo checks
def _pettingzoo_test() -> Any:
    with warnings.catch_warnings():  # pettingzoo.test imports a deprecated classic env at import time
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        import pettingzoo.test as pz_test
    return pz_test


def _seeded_actions(env: Any, seed: int) -> Any:
    """``env`` with every seat's action space seeded from ``seed``: PettingZoo's api tests play actions drawn from
    them (their resets are seeded), so the check plays the same trajectory in every run; unseeded, a rare state
    (an all-zero observation, which PettingZoo warns of) came up in some runs and not in others."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    return env


def _pz_api(factory: Callable[[], Any], seed: int) -> None:
    _pettingzoo_test().api_test(_seeded_actions(factory(), seed), num_cycles=50)


def _pz_seed(factory: Callable[[], Any]) -> None:
    _pettingzoo_test().seed_test(factory, num_cycles=50)


def _pz_parallel_api(factory: Callable[[], Any], seed: int) -> None:
    _pettingzoo_test().parallel_api_test(_seeded_actions(factory(), seed), num_cycles=50)


def _pz_parallel_seed(factory: Callable[[], Any]) -> None:
    _pettingzoo_test().parallel_seed_test(factory, num_cycles=50)


def _tom_contract_aec(factory: Callable[[], Any], seed: int) -> None:
    from tom_envs.tom import tom_spec_of

    env = factory()
    spec = tom_spec_of(env)
    if spec.predictor is not None and spec.predictor not in env.possible_agents:
        raise AssertionError(
            f"tom_spec names the predictor {spec.predictor!r}, not a seat of the env ({', '.join(env.possible_agents)})"
        )
    env.reset(seed=seed)
    for i, agent in enumerate(env.agent_iter(max_iter=2_000)):
        _, _, terminated, truncated, _ = env.last()
        space = env.action_space(agent)
        space.seed(seed + i)
        env.step(None if terminated or truncated else space.sample())
        _check_truth(spec, env.unwrapped.tom_truth(), env.unwrapped.tom_outcome())


def _probe_options(record: Any) -> dict[str, Any]:
    """A registered id's family's information-rule settings (``Family.probe``), or none."""
    if record is None or not record.family:
        return {}
    from tom_envs.family import families

    fam = next((f for f in families() if f.name == record.family), None)
    return dict(fam.probe) if fam is not None else {}


def _information(env: Any, options: Mapping[str, Any], wanted: bool) -> str | None:
    if not wanted:
        return "information=False"
    from tom_envs.checks import check_information_rule

    check_information_rule(env, **options)
    return None


__all__ = ["ALLOWED_WARNINGS", "ConformanceError", "ConformanceReport", "check_env", "comparable"]
