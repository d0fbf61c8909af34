"""What ``tom-envs persuasion --env live`` plays per live env (``--live-env``): one :class:`LiveVersion` each.

v1 and v2 (:mod:`tom_envs.persuasion.versions`) share their persuaders (:data:`policies.persuasion.scripted.
MIND_PERSUADERS`, the speaking ones, the LLM persuader), read written lines and score desire, belief and intention.
v3 (:mod:`tom_envs.persuasion.mind_env_v3`) takes integer acts, plays its own reference persuaders
(:data:`policies.persuasion.v3.V3_PERSUADERS`), scores source and stake, and has every reference exact, issue 39's
gates among them (:mod:`benchmarks.persuasion.live_gates`). The command reads the version from here and names none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from benchmarks.persuasion.live_gates import V3_GATES, Gate
from policies.base import BasePolicy
from policies.persuasion.scripted import MIND_PERSUADERS
from policies.persuasion.speaking import SPEAKING_PERSUADERS
from policies.persuasion.v3 import V3_PERSUADERS
from tom_envs.errors import TomEnvsError


class LiveVersionError(TomEnvsError, ValueError):
    """A live env's families or turn budget that it cannot play (the message names what it accepts)."""


@dataclass(frozen=True)
class LiveVersion:
    """One live env as the live command plays it.

    Attributes:
        env_id: the registered id (``--live-env``).
        persuaders: the persuaders by name (a class's ``env_kwargs`` go to its env).
        scripted: what ``--policy all`` (and no ``--policy``) plays.
        targets: the literal-ToM targets the recorder scores (``<target>_accuracy`` in the rows).
        resolve: the names of the families a ``--families`` value selects.
        references: each family's references at a turn budget, ``{family: {key: success probability}}``.
        reads_words: the env reads written lines (the LLM persuader and ``--reader llm`` apply).
        exact: persuader name -> the reference key of its own exact success (its row shows it beside its success).
        floors: the reference keys of the success floors that need no ToM, shown beside every persuader's success.
        literal_floors: target -> the reference key of its literal-ToM floor (majority %).
        gates: issue 39's gates on the references (printed with pass/fail).
    """

    env_id: str
    persuaders: Mapping[str, Callable[[], BasePolicy]]
    scripted: tuple[str, ...]
    targets: tuple[str, ...]
    resolve: Callable[[Any], list[str]]
    references: Callable[[Sequence[str], int], dict[str, dict[str, Any]]]
    reads_words: bool
    exact: Mapping[str, str] = field(default_factory=dict)
    floors: tuple[str, ...] = ()
    literal_floors: Mapping[str, str] = field(default_factory=dict)
    gates: tuple[Gate, ...] = ()


def _mind_families(families: Any) -> list[str]:
    from tom_envs.persuasion.mind_env import resolve_families

    return [f.name for f in resolve_families(_split(families))]


def _v3_families(families: Any) -> list[str]:
    from tom_envs.persuasion.mind_env_v3 import resolve_families_v3

    return [f.name for f in resolve_families_v3(_split(families))]


def _split(families: Any) -> Any:
    return [f.strip() for f in families.split(",") if f.strip()] if isinstance(families, str) else families


def _mind_references(env_id: str) -> Callable[[Sequence[str], int], dict[str, dict[str, Any]]]:
    def references(names: Sequence[str], horizon: int) -> dict[str, dict[str, Any]]:
        """Each family's references (v1: exact; v2: bounds; the version is the id's ``-vN``)."""
        from tom_envs.persuasion.versions import version_for

        version = version_for(env_id.rsplit("-v", 1)[1])
        return {f: version.references(version.model(version.family_named(f)), horizon).as_dict() for f in names}

    return references


def _v3_references(names: Sequence[str], horizon: int) -> dict[str, dict[str, Any]]:
    """Each v3 family's exact references (:func:`~tom_envs.persuasion.planning_v3.references_v3`), with the value of
    tracking (Bayes - open-loop) and of information (oracle - Bayes) as v1/v2 name them, and each trait's majority."""
    from tom_envs.persuasion.mind_v3 import family_v3_named, model_v3_for
    from tom_envs.persuasion.planning_v3 import majority_v3, references_v3

    out = {}
    for name in names:
        family = family_v3_named(name)
        refs = references_v3(family, horizon).as_dict()
        refs["value_of_tracking"] = refs["bayes"] - refs["open_loop"]
        refs["value_of_information"] = refs["oracle"] - refs["bayes"]
        refs.update({f"{t}_majority": v for t, v in majority_v3(model_v3_for(family)).items()})
        out[name] = refs
    return out


_MIND_TARGETS = ("desire", "belief", "intention")
_MIND_PERSUADERS: dict[str, Callable[[], BasePolicy]] = {**MIND_PERSUADERS, **SPEAKING_PERSUADERS}

#: The live envs by id, the default first (v2; v1 and v3 stay selectable with ``--live-env``).
LIVE_VERSIONS: dict[str, LiveVersion] = {
    env_id: LiveVersion(
        env_id, _MIND_PERSUADERS, tuple(MIND_PERSUADERS), _MIND_TARGETS, _mind_families, _mind_references(env_id), True
    )
    for env_id in ("tom/Persuasion-v2", "tom/Persuasion-v1")
}
LIVE_VERSIONS["tom/Persuasion-v3"] = LiveVersion(
    "tom/Persuasion-v3",
    V3_PERSUADERS,
    tuple(V3_PERSUADERS),
    ("source", "stake"),
    _v3_families,
    _v3_references,
    reads_words=False,
    exact={name: name.replace("-", "_") for name in V3_PERSUADERS},
    floors=("memoryless", "echo", "open_loop"),
    literal_floors={"source": "source_majority", "stake": "stake_majority"},
    gates=V3_GATES,
)


def live_version(env_id: str) -> LiveVersion:
    """The live env ``env_id`` as the command plays it.

    Raises:
        LiveVersionError: an id the command does not play (the known ones are listed).
    """
    if env_id not in LIVE_VERSIONS:
        raise LiveVersionError(f"--live-env {env_id!r}: choose from {', '.join(LIVE_VERSIONS)}")
    return LIVE_VERSIONS[env_id]


__all__ = ["LIVE_VERSIONS", "LiveVersion", "LiveVersionError", "live_version"]
