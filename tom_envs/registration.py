"""The one registry of tom-envs ids.

Every id lives here (Gymnasium-style ``tom/Name-vN``), with a lazy ``"module:Class"`` entry
point. Single-agent ids are also registered with Gymnasium, so ``gymnasium.make`` works;
multi-agent (PettingZoo) ids are made with :func:`make` / :func:`make_aec`. Docs (the README
table), tests (conformance over the registry) and the CLI all read :data:`REGISTRY`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium

from tom_envs.errors import ContradictoryKwargs, UnknownEnvironment

Kind = Literal["gymnasium", "parallel", "aec"]


@dataclass(frozen=True)
class EnvRecord:
    """One registered id.

    Attributes:
        id: ``"tom/Name-vN"``.
        entry_point: ``"module:Class"`` (imported on make).
        kind: ``"gymnasium"`` (single agent), ``"parallel"`` or ``"aec"`` (PettingZoo).
        kwargs: default constructor arguments.
        family: task family (``"matrix"``, ...).
        summary: one line for the docs.
        example_kwargs: extra arguments needed to make an instance (conformance tests and docs use
            them for ids such as ``tom/MatrixGame-v0`` that have no default game).
        builtin: registered by tom-envs itself (listed in the README) rather than by a user.
        self_checked: the env raises named errors for misuse of the call order itself (step before
            reset, step after the end), so ``gymnasium.make`` adds neither ``OrderEnforcing`` nor
            the passive env checker on the hot path; the full ``check_env`` runs on it in the
            conformance tests instead.
        sb3: its spaces are ones stable-baselines3 accepts (text/dict QA envs are not); the
            conformance tests run SB3's checker only on those.
        pinned: the names in ``kwargs`` whose values *are* the id (``tom/RPS-v0`` is the game RPS):
            making the id with another value is :class:`~tom_envs.errors.ContradictoryKwargs`, through
            :func:`make` and ``gymnasium.make`` alike. Other ``kwargs`` are defaults a caller may change.
    """

    id: str
    entry_point: str
    kind: Kind
    kwargs: dict[str, Any] = field(default_factory=dict)
    family: str = ""
    summary: str = ""
    example_kwargs: dict[str, Any] = field(default_factory=dict)
    builtin: bool = False
    self_checked: bool = False
    sb3: bool = True
    pinned: tuple[str, ...] = ()

    def check_kwargs(self, kwargs: dict[str, Any]) -> None:
        """Raise :class:`~tom_envs.errors.ContradictoryKwargs` if ``kwargs`` change a pinned value."""
        for name in self.pinned:
            if name in kwargs and not _same(kwargs[name], self.kwargs[name]):
                others = [
                    r.id
                    for r in REGISTRY.values()
                    if r.entry_point == self.entry_point
                    and r.kind == self.kind
                    and name in r.pinned
                    and _same(r.kwargs[name], kwargs[name])
                ]
                free = [
                    r.id
                    for r in REGISTRY.values()
                    if r.entry_point == self.entry_point and r.kind == self.kind and name not in r.kwargs
                ]
                hint = (
                    f"make {others[0]!r} instead"
                    if others
                    else (f"make {free[0]!r} with {name}=... instead" if free else f"leave {name} out")
                )
                raise ContradictoryKwargs(
                    f"{self.id!r} is {name}={self.kwargs[name]!r}; {name}={kwargs[name]!r} contradicts the id: {hint}"
                )


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays: compare by identity only
        return a is b


class PinnedEntryPoint:
    """Gymnasium's entry point of an id with pinned kwargs: checks them (:meth:`EnvRecord.check_kwargs`),
    then makes the env from ``"module:Class"``. Gymnasium hands its creator the id's kwargs merged
    with the caller's, so a value that differs from the pinned one is the caller's."""

    def __init__(self, env_id: str, target: str) -> None:
        self.env_id, self.target = env_id, target

    @property
    def metadata(self) -> dict[str, Any]:  # gymnasium.make reads the creator's render modes
        return dict(getattr(load(self.target), "metadata", {}))

    def __call__(self, **kwargs: Any) -> Any:
        record(self.env_id).check_kwargs(kwargs)
        return load(self.target)(**kwargs)

    def __repr__(self) -> str:
        return f"PinnedEntryPoint({self.env_id!r}, {self.target!r})"


REGISTRY: dict[str, EnvRecord] = {}


def register(
    id: str,
    entry_point: str,
    *,
    kind: Kind = "gymnasium",
    kwargs: dict[str, Any] | None = None,
    family: str = "",
    summary: str = "",
    example_kwargs: dict[str, Any] | None = None,
    builtin: bool = False,
    self_checked: bool = False,
    vector_entry_point: str | None = None,
    sb3: bool = True,
    pinned: tuple[str, ...] = (),
) -> EnvRecord:
    """Add an id to the registry (and to Gymnasium's, for single-agent ids); ``pinned`` names the
    ``kwargs`` that define the id (:attr:`EnvRecord.pinned`)."""
    if not id.startswith("tom/"):
        raise ValueError(f"tom-envs ids live in the 'tom/' namespace, got {id!r}")
    if id in REGISTRY:
        raise ValueError(f"{id!r} is already registered; bump the version suffix for a changed task")
    pinned = tuple(pinned)
    if any(name not in (kwargs or {}) for name in pinned):
        raise ValueError(f"{id!r}: pinned names {pinned} must be keys of its kwargs {sorted(kwargs or {})}")
    rec = EnvRecord(
        id,
        entry_point,
        kind,
        dict(kwargs or {}),
        family,
        summary,
        dict(example_kwargs or {}),
        builtin,
        self_checked,
        sb3,
        pinned,
    )
    REGISTRY[id] = rec
    if kind == "gymnasium":
        creator: Any = PinnedEntryPoint(id, entry_point) if pinned else entry_point
        vector: Any = PinnedEntryPoint(id, vector_entry_point) if pinned and vector_entry_point else vector_entry_point
        gymnasium.register(
            id=id,
            entry_point=creator,
            kwargs=dict(kwargs or {}),
            vector_entry_point=vector,
            order_enforce=not self_checked,
            disable_env_checker=self_checked,
        )
    else:  # gymnasium.make of a PettingZoo id says how to make it instead of "doesn't exist"
        gymnasium.register(id=id, entry_point=pettingzoo_hint, kwargs={"env_id": id}, disable_env_checker=True)
    return rec


def pettingzoo_hint(env_id: str, **kwargs: Any) -> Any:
    """What ``gymnasium.make`` runs for a PettingZoo id: an error naming the way to make it."""
    rec = REGISTRY[env_id]
    how = f"tom_envs.make({env_id!r})" + (f" or tom_envs.make_aec({env_id!r})" if rec.kind == "parallel" else "")
    raise UnknownEnvironment(
        f"{env_id!r} is a PettingZoo {rec.kind} env (several agents), not a Gymnasium one: make it with {how}"
    )


def ids(kind: Kind | None = None, family: str | None = None) -> list[str]:
    """Registered ids, optionally of one kind and/or family."""
    return [
        r.id for r in REGISTRY.values() if (kind is None or r.kind == kind) and (family is None or r.family == family)
    ]


def reader_ids(entry_point: str) -> tuple[str, ...]:
    """The registered ids whose env class is ``entry_point`` (``"module:Class"``)."""
    return tuple(rec.id for rec in REGISTRY.values() if rec.entry_point == entry_point)


def newest_id(entry_point: str) -> str:
    """The registered id of the env class ``entry_point`` with the highest version suffix."""
    found = reader_ids(entry_point)
    if not found:
        raise UnknownEnvironment(f"no registered id makes {entry_point}; is tom_envs imported?")
    return max(found, key=lambda env_id: int(tail) if (tail := env_id.rsplit("-v", 1)[-1]).isdigit() else -1)


def record(env_id: str) -> EnvRecord:
    try:
        return REGISTRY[env_id]
    except KeyError:
        if env_id in RETIRED:
            raise UnknownEnvironment(f"{env_id!r} is no longer registered: {RETIRED[env_id]}") from None
        raise UnknownEnvironment(f"{env_id!r} is not a tom-envs id; registered ids: {', '.join(REGISTRY)}") from None


#: Ids once registered, and what replaced them (:func:`retire`; each family retires its own).
RETIRED: dict[str, str] = {}


def retire(env_id: str, replacement: str) -> None:
    """Mark ``env_id`` as once registered: making it raises :class:`UnknownEnvironment` saying
    ``replacement`` (what to use instead, and why), as Gymnasium does for retired versions."""
    if env_id in REGISTRY:
        raise ValueError(f"{env_id!r} is registered; unregister it before retiring it")
    RETIRED[env_id] = replacement


def load(entry_point: str) -> Any:
    module, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module), attr)


def make(env_id: str, **kwargs: Any) -> Any:
    """Make any registered environment: Gymnasium ids through ``gymnasium.make`` (with its
    wrappers), PettingZoo ids as their native parallel or AEC env."""
    rec = record(env_id)
    if rec.kind == "gymnasium":
        return gymnasium.make(env_id, **kwargs)
    rec.check_kwargs(kwargs)
    merged = {**rec.kwargs, **kwargs}
    env = load(rec.entry_point)(**merged)
    env.tom_made = (env_id, merged)  # the id and kwargs, for tom_envs.description.describe (public configuration)
    return env


def make_aec(env_id: str, **kwargs: Any) -> Any:
    """An AEC view of a PettingZoo id (parallel envs go through PettingZoo's ``parallel_to_aec``)."""
    rec = record(env_id)
    if rec.kind == "gymnasium":
        raise UnknownEnvironment(f"{env_id!r} is a single-agent Gymnasium env; use gymnasium.make")
    env = make(env_id, **kwargs)
    if rec.kind == "parallel":
        from pettingzoo.utils.conversions import parallel_to_aec

        return parallel_to_aec(env)
    return env


def unregister(env_id: str) -> None:
    """Remove an id (from Gymnasium's registry too); for tests and interactive sessions."""
    record(env_id)
    del REGISTRY[env_id]
    gymnasium.registry.pop(env_id, None)


def markdown_table(plugins: bool = False) -> str:
    """The table of the built-in ids (the README's), generated from the registry; with ``plugins``, every
    registered id, with a column naming the distribution that declares its family (``tom-envs`` for the
    built-in ones; ``tom-envs registry`` prints this one)."""
    if not plugins:
        lines = ["| id | kind | family | what it is |", "|---|---|---|---|"]
        lines += [f"| `{r.id}` | {r.kind} | {r.family} | {r.summary} |" for r in REGISTRY.values() if r.builtin]
        return "\n".join(lines)
    from tom_envs.family import distribution_of

    lines = ["| id | kind | family | from | what it is |", "|---|---|---|---|---|"]
    lines += [
        f"| `{r.id}` | {r.kind} | {r.family} | {'tom-envs' if r.builtin else distribution_of(r.family)} | {r.summary} |"
        for r in REGISTRY.values()
    ]
    return "\n".join(lines)
