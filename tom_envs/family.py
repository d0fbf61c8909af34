"""Families as plugins: one :class:`Family` declaration each, found through an entry-point group.

A task family (the matrix games, persuasion, common ground, negotiation, or yours) declares once
what the shared code needs to know about it, and registers the declaration under the Python
entry-point group ``tom_envs.families`` -- the built-in families exactly as a third-party package
does, in its ``pyproject.toml``::

    [project.entry-points."tom_envs.families"]
    hidden_role = "my_package.family:FAMILY"

Shared code (the CLI, the report, the dataset listing and downloads) iterates over
:func:`families` and names none of them. The declaration holds *where* each layer's part lives, as
``"module"`` or ``"module:attribute"`` strings imported only when used, so a family's benchmark and
report code stay in their own layers (``tom_envs`` imports nothing above it; docs/architecture.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tom_envs.errors import TomEnvsError

#: The entry-point group every family is registered under (built-in ones included).
GROUP = "tom_envs.families"

#: The distribution whose families are built in (identified by the suite's own version and commit).
BUILTIN_DISTRIBUTION = "tom-envs"

#: Words of the shared code a family may not take as its name or command: the core's own ``tom-envs``
#: commands (a family's command beside them) and the shared results folders.
CORE_WORDS = frozenset(
    {"batch", "crossplay", "data", "export", "help", "model", "registry", "report", "rl", "selfplay", "version"}
)


class FamilyError(TomEnvsError, LookupError):
    """A family declaration is malformed, or no family has the name asked for."""


@dataclass(frozen=True)
class Family:
    """What the shared code needs to know about one task family.

    Attributes:
        name: the family's name in the registry (``EnvRecord.family``), e.g. ``"common_ground"``.
        command: the ``tom-envs`` subcommand and the name shown for it (``"common-ground"``); default
            ``name``.
        benchmark: the module whose import declares the family's benchmark
            (:func:`benchmarks.family.register`), or None.
        results_folder: the folder under ``--out`` its results files go to; default ``name``.
        report_section: ``"module:function"`` building its report section from its results
            (``function(family_data, figures_dir, out_dir) -> Section``), or None for the generic one.
        download: the module that fetches its published dataset (``add_arguments(parser)``,
            ``from_args(args)``), or None.
        dataset: ``"module:function"`` returning its :class:`~tom_envs.download.Dataset` for
            ``tom-envs data list``, or None.
        probe: keyword arguments of :func:`tom_envs.checks.check_information_rule` for its ids
            (e.g. fewer episodes for long AEC episodes; ``declare``: what is public, per seat, composed
            or known, beside the envs' own ``tom_public`` / ``tom_private`` / ``tom_composed`` /
            ``tom_known`` -- nothing undeclared is public).
        commands: ``"module:attribute"`` of each further ``tom-envs`` command of the family
            (a :class:`benchmarks.cli.Command`), e.g. the matrix family's ``demo``, ``perf``.
        retired_commands: command names the family once had → what to run instead (``tom-envs
            NAME`` then fails with that message, a named error).
        envs: the module whose import registers the family's env ids (``tom_envs.register``
            calls); ``import tom_envs`` imports it. None: the family registers its ids itself.
        rl: ``"module:attribute"`` of each of the family's RL settings (a ``benchmarks.rl.RLTask``
            naming the ids it trains on, their train/test splits and the functional outcome), read
            by ``tom-envs rl --env ID`` (docs/rl.md).
        crossplay: ``"module:attribute"`` of each of the family's crossplay settings (a
            ``benchmarks.crossplay.CrossplayTask`` naming its two-seat ids and the population that plays every
            pairing on them), read by ``tom-envs crossplay`` (docs/crossplay.md).
        selfplay: ``"module:attribute"`` of each of the family's self-play settings (a
            ``benchmarks.selfplay.SelfplayTask`` naming its two-seat ids, how one seat is played against a given
            policy and the frozen population), read by ``tom-envs selfplay`` (docs/selfplay.md).
        order: where it comes in listings (built-in families first, in the papers' order).
    """

    name: str
    command: str = ""
    benchmark: str | None = None
    results_folder: str = ""
    report_section: str | None = None
    download: str | None = None
    dataset: str | None = None
    probe: Mapping[str, Any] = field(default_factory=dict)
    commands: tuple[str, ...] = ()
    retired_commands: Mapping[str, str] = field(default_factory=dict)
    envs: str | None = None
    rl: tuple[str, ...] = ()
    crossplay: tuple[str, ...] = ()
    selfplay: tuple[str, ...] = ()
    order: int = 100

    @classmethod
    def standard(cls, name: str, *, download: bool = False, **fields: Any) -> "Family":
        """A family laid out as the built-in ones are: its ids in ``tom_envs/<name>/ids.py``, its
        command in ``benchmarks/<name>/benchmark.py``, its report section ``<name>`` in
        ``benchmarks/<name>/report.py`` and, with ``download=True``, its dataset fetcher in
        ``tom_envs/<name>/download.py`` and its ``dataset()`` in ``tom_envs/<name>/family.py``.
        ``fields`` set the rest (or override these)."""
        laid_out: dict[str, Any] = {
            "envs": f"tom_envs.{name}.ids",
            "benchmark": f"benchmarks.{name}.benchmark",
            "report_section": f"benchmarks.{name}.report:{name}",
        }
        if download:
            laid_out.update(download=f"tom_envs.{name}.download", dataset=f"tom_envs.{name}.family:dataset")
        return cls(name=name, **{**laid_out, **fields})

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise FamilyError(f"a family name is letters, digits and underscores, got {self.name!r}")
        object.__setattr__(self, "command", self.command or self.name)
        object.__setattr__(self, "results_folder", self.results_folder or self.name)
        taken = sorted({self.name, self.command, self.name.replace("_", "-")} & CORE_WORDS)
        if taken:
            raise FamilyError(
                f"the family {self.name!r} takes the core word {taken[0]!r} (a tom-envs command of the "
                f"shared code; core words: {', '.join(sorted(CORE_WORDS))}); choose another name or "
                "command= for it"
            )

    def beside_benchmark(self, name: str) -> Any:
        """The module ``name`` in the package of the family's benchmark module (``benchmarks.<family>.<name>`` for
        the built-in families; the same place in a plugin's own package), imported; None when the family has no
        benchmark, its benchmark module is top-level, or the package has no such module. How the harnesses find a
        family's parts (its Inspect tasks, its lm-eval export)."""
        if not self.benchmark:
            return None
        target = f"{self.benchmark.rpartition('.')[0] or self.benchmark}.{name}"
        try:
            spec = importlib.util.find_spec(target)
        except ModuleNotFoundError:  # a top-level benchmark module: no package to look in
            spec = None
        return None if spec is None else importlib.import_module(target)

    def modules(self) -> tuple[str, ...]:
        """The modules the declaration names (``envs``, ``benchmark``, report, download, dataset, commands, RL,
        crossplay, self-play)."""
        named = [
            self.envs,
            self.benchmark,
            self.report_section,
            self.download,
            self.dataset,
            *self.commands,
            *self.rl,
            *self.crossplay,
            *self.selfplay,
        ]
        return tuple(dict.fromkeys(t.partition(":")[0] for t in named if t))


def load_object(target: str) -> Any:
    """``"module"`` (the module) or ``"module:attribute"`` (the attribute), imported now."""
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr) if attr else module


#: Per declared family name, the distribution that declares it: (name, version), (None, None) if unknown.
_ORIGIN: dict[str, tuple[str | None, str | None]] = {}
#: Per declared family name, the module of its entry point (where the declaration lives).
_ENTRY: dict[str, str] = {}


@lru_cache(maxsize=1)
def _discovered() -> tuple[Family, ...]:
    from importlib.metadata import entry_points

    found: dict[str, Family] = {}
    for ep in entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        fam = ep.load()
        if not isinstance(fam, Family):
            raise FamilyError(
                f"the entry point {ep.name!r} of group {GROUP!r} ({ep.value}) is a "
                f"{type(fam).__name__}, not a tom_envs.family.Family"
            )
        if fam.name in found and found[fam.name] != fam:
            raise FamilyError(f"two packages declare the family {fam.name!r} ({ep.value} and another)")
        found[fam.name] = fam
        _ORIGIN[fam.name] = (dist.metadata["Name"], dist.version) if dist is not None else (None, None)
        _ENTRY[fam.name] = ep.value.partition(":")[0].strip()
    return tuple(sorted(found.values(), key=lambda f: (f.order, f.name)))


def _canonical(dist_name: str | None) -> str | None:
    return None if dist_name is None else dist_name.lower().replace("_", "-").replace(".", "-")


def distribution_of(name: str) -> str:
    """The distribution (``name version``) that declares the family called ``name`` (its name, command or
    results folder), or ``"(no family declaration)"`` for ids registered without one (a script's own)."""
    fam = next((f for f in families() if name in (f.name, f.command, f.results_folder)), None)
    dist, version = _ORIGIN.get(fam.name, (None, None)) if fam is not None else (None, None)
    if dist is None:
        return "(no family declaration)"
    return f"{dist} {version}" if version else dist


def is_builtin(name: str) -> bool:
    """Whether the family called ``name`` is declared by tom-envs itself (not by a plugin's distribution)."""
    fam = family(name)
    return _canonical(_ORIGIN.get(fam.name, (None, None))[0]) == BUILTIN_DISTRIBUTION


@lru_cache(maxsize=None)
def plugin_identity(name: str) -> dict[str, Any] | None:
    """What identifies a plugin family's code, for results keys and records: ``{"distribution", "version",
    "modules_sha256"}`` (a sha256 over the source of the package holding its declaration and of every package the
    declaration names, file by file), so
    that changing the plugin's code computes its results afresh. None for a built-in family (the suite's own
    version and commit stamp those) and for a name no declared family has (a benchmark registered in a
    process without a family declaration). Computed once per process."""
    import hashlib
    import importlib.util
    from pathlib import Path

    fam = next((f for f in families() if name in (f.name, f.command, f.results_folder)), None)
    if fam is None or is_builtin(fam.name):  # built in, or a benchmark declared without a family (tests' toys)
        return None
    dist, version = _ORIGIN.get(fam.name, (None, None))
    digest = hashlib.sha256()
    roots: set[Path] = set()
    for module in (_ENTRY.get(fam.name, ""), *fam.modules()):
        if not module:
            continue
        spec = importlib.util.find_spec(module.split(".")[0])
        if spec is None:
            continue
        if spec.submodule_search_locations:
            roots.update(Path(p) for p in spec.submodule_search_locations)
        elif spec.origin:
            roots.add(Path(spec.origin))
    for root in sorted(roots):
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for f in files:
            if "__pycache__" in f.parts:
                continue
            digest.update(f"{root.name}/{f.relative_to(root) if root.is_dir() else f.name}\n".encode())
            digest.update(f.read_bytes())
    return {"distribution": dist, "version": version, "modules_sha256": digest.hexdigest()}


def families() -> tuple[Family, ...]:
    """Every declared family (entry-point group :data:`GROUP`), built-in ones first."""
    return _discovered()


def import_envs() -> None:
    """Import every declared family's ``envs`` module, which registers its ids (``import tom_envs``
    does this; a module already imported is not run again)."""
    for fam in families():
        if fam.envs:
            importlib.import_module(fam.envs)


def refresh() -> tuple[Family, ...]:
    """Look for declarations again (after installing a family's package into a running process, e.g.
    adding its folder to ``sys.path``) and register the ids of any new family; returns every family."""
    _discovered.cache_clear()
    plugin_identity.cache_clear()
    import_envs()
    return families()


def family(name: str) -> Family:
    """The family called ``name`` (its registry name or its command)."""
    for fam in families():
        if name in (fam.name, fam.command):
            return fam
    raise FamilyError(
        f"no family {name!r}; declared: {', '.join(f.name for f in families()) or 'none'} "
        f"(a family registers a tom_envs.family.Family under the entry-point group {GROUP!r})"
    )
