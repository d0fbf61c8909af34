"""The runner's channels as the checker models them (docs/architecture.md, contract 4): what a runner hands a
policy besides the env's returns -- the description ``check_env`` gets, the policy's random seed, and the
passes over the same items -- and what an env or family declares public or known to a seat.

* **Description**: :func:`check_description` -- no env object, no attribute forwarding, picklable.
* **Seeds**: ``policy_seeds(run_seed)(env_seed)`` is the seed the runner gives the policy of the episode
  seeded ``env_seed`` in the run seeded ``run_seed``. A cheating policy knows the runner's code but not
  its run seed: :func:`check_seeds` fails when the policy seed is the same under another run seed (a
  function of the env seed alone), and the play rebuilds a *shadow* env from what the policy can infer
  (the env seed, inverted through a table of the derivation under another run seed, else the policy seed
  itself) and reads its truths (``shadow.*``), so that a shadow reproducing the hidden draws is a leak.
* **Passes**: ``passes`` plays of the run with the same seeds; ``remember=True`` models a runner that keeps
  the policy's state across passes after handing it each episode's end (where every truth is revealed):
  the truths remembered for an item shown again (``passes.*``) are read as any returned value.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from tom_envs.checks.report import ProbeResult

ENV_MEMBERS = ("reset", "step", "unwrapped", "tom_truth", "observe", "agent_iter", "np_random")


@dataclass(frozen=True)
class RunnerChannels:
    """What a runner hands a policy besides the env's returns (see the module docstring).

    Attributes:
        description: the object the runner hands ``policy.check_env`` (None: not checked).
        policy_seeds: ``run_seed -> (env_seed -> policy_seed)``, the runner's derivation (None: not checked).
        passes: plays of the whole run over the same items; ``remember``: the policy keeps what each
            episode's end revealed into the next pass (the runner's memory channel).
    """

    description: Any = None
    policy_seeds: Callable[[int], Callable[[int], int]] | None = None
    passes: int = 1
    remember: bool = False


@dataclass(frozen=True)
class Declared:
    """What an env (``tom_public`` / ``tom_private`` / ``tom_composed`` / ``tom_known`` attributes of the
    unwrapped env) or its family (``Family.probe["declare"]``) says is no leak. Nothing else is public:
    every undeclared observation element, info key, reward and word of a text is a candidate leak.

    Attributes:
        public: patterns of returned paths (:func:`~tom_envs.checks.features.pattern`: ``*`` and ``?`` wildcards, brackets literal)
            that every seat may read (``"obs[0]"``, ``"info.partner_action"``, ``"info.state.*"``): the
            public part reads them (and, where truths follow the play, their earlier values), the future
            probe compares with them. Paths of the env's *own* observation: under a wrapper that changes
            it they name the unwrapped env's (``own.*``), and the wrapper's additions stay candidates.
        private: seat pattern → path patterns public *to that seat* (what it knows of itself: a
            negotiating party's own preferences), the honest context of that seat's probes.
        composed: text path → patterns of the public elements it is made of (``{"obs.text": ["obs.context",
            "obs.question", "obs.choices[*]"]}``): the text is public as far as those explain it; what is
            left once their values are cut out of it (``<path>#rest``: the template, and any hint put
            anywhere in it) is a candidate, read whole and by its first and last word and last number.
        known: seat pattern → target-element prefixes that seat knows itself (``{"party_*":
            ["stances[{i},"]}``: party 3 knows ``stances[3, *]``; ``{i}`` is the seat name's last number).
    """

    public: tuple[str, ...] = ()
    known: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    private: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    composed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, base: Any, declare: Mapping[str, Any] | None) -> "Declared":
        declare = dict(declare or {})

        def merged(attr: str, key: str) -> dict[str, tuple[str, ...]]:
            found = {**dict(getattr(base, attr, {}) or {}), **dict(declare.get(key, {}))}
            return {k: tuple(v) for k, v in found.items()}

        public = tuple(getattr(base, "tom_public", ())) + tuple(declare.get("public", ()))
        return cls(
            public, merged("tom_known", "known"), merged("tom_private", "private"), merged("tom_composed", "composed")
        )

    def for_seat(self, seat: str | None) -> tuple[str, ...]:
        """The path patterns public to ``seat`` (None: a single-agent env's policy): the public ones, its
        private ones and the composed texts themselves."""
        own = [p for s, ps in self.private.items() if seat is not None and fnmatchcase(seat, s) for p in ps]
        return self.public + tuple(own) + tuple(self.composed)

    def knows(self, seat: str | None, element: str) -> bool:
        """Whether ``seat`` knows the target element ``element`` itself (its own mind)."""
        if seat is None:
            return False
        index = (re.findall(r"\d+", seat) or [""])[-1]
        return any(
            fnmatchcase(seat, pattern) and element.startswith(prefix.format(i=index))
            for pattern, prefixes in self.known.items()
            for prefix in prefixes
        )


def check_description(description: Any) -> ProbeResult:
    """The description handed to ``check_env``: not an env, holding none, forwarding no attribute access,
    picklable (a frozen record of id, kwargs, spaces, horizon, agents)."""
    result = ProbeResult("channel", "description", 0.0, 0.0, 0.0, 0.0, type(description).__name__, "static")
    stack, seen = [("description", description)], set()
    while stack:
        path, value = stack.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None))):
            continue
        seen.add(id(value))
        if "__getattr__" in {n for c in type(value).__mro__[:-1] for n in vars(c)}:
            result.leaks.append(
                f"{path} ({type(value).__name__}) forwards attribute access (__getattr__): a policy "
                "reaches whatever it wraps"
            )
            continue
        members = [m for m in ENV_MEMBERS if hasattr(value, m) and not isinstance(value, type)]
        if len(members) >= 2:
            result.leaks.append(
                f"{path} handed to check_env is an env or holds one ({type(value).__name__} has "
                f"{', '.join(members)}): hand a frozen description (id, kwargs, spaces, horizon, agents)"
            )
            continue
        items = (
            value.items()
            if isinstance(value, Mapping)
            else enumerate(value)
            if isinstance(value, (list, tuple))
            else vars(value).items()
            if hasattr(value, "__dict__")
            else ()
        )
        stack += [(f"{path}.{k}", v) for k, v in items]
    try:
        pickle.dumps(description)
    except Exception as err:  # noqa: BLE001 -- any failure to pickle is the finding
        result.leaks.append(f"the description handed to check_env does not pickle ({type(err).__name__}: {err})")
    return result


def check_seeds(
    policy_seeds: Callable[[int], Callable[[int], int]], env_seeds: list[int], run_seed: int = 0
) -> ProbeResult:
    """The policy seeds of ``env_seeds`` in run ``run_seed`` must change with the run seed and never equal
    the env seed: else a policy rebuilds its env (a shadow) and with it every hidden draw."""
    this, other = policy_seeds(run_seed), policy_seeds(run_seed + 1)
    mine = [int(this(s)) for s in env_seeds]
    same = sum(a == int(other(s)) for a, s in zip(mine, env_seeds)) / max(len(env_seeds), 1)
    equal = sum(a == s for a, s in zip(mine, env_seeds)) / max(len(env_seeds), 1)
    result = ProbeResult(
        "channel", "seeds", same, 0.0, 0.0, 0.0, "policy seed", "same under another run seed", len(env_seeds)
    )
    if equal:
        result.leaks.append(
            f"the policy seed equals the env seed in {100 * equal:.0f} % of episodes: a policy rebuilds its env with it"
        )
    elif same:
        result.leaks.append(
            f"the policy seed is a function of the env seed alone ({100 * same:.0f} % of episodes get "
            "the same one under another run seed): a table over env seeds inverts it"
        )
    return result


def shadow_seed(
    policy_seeds: Callable[[int], Callable[[int], int]], env_seeds: list[int], run_seed: int = 0
) -> Callable[[int], int]:
    """env seed → the env seed a cheating policy rebuilds from the policy seed it received: looked up in
    a table of the runner's derivation under *another* run seed (the code is public, the run seed is
    not), else the policy seed itself."""
    this, other = policy_seeds(run_seed), policy_seeds(run_seed + 1)
    table = {int(other(s)): s for s in env_seeds}
    return lambda s: table.get(int(this(s)), int(this(s)))
