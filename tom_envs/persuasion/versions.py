"""Versions of live persuasion as configurations of one core.

The live persuasion envs (:mod:`tom_envs.persuasion.mind_env`, single seat;
:mod:`tom_envs.persuasion.mind_two_seat`, two seats) are one implementation each. What a version
changes is a :class:`MindVersion`: the persuadee's dynamics (the compiled transition tables of
:class:`~tom_envs.persuasion.mind.MindModel` or :class:`~tom_envs.persuasion.mind_v2.MindModelV2`), the
strategies a reader can hear, the default reader, the planner and references, the turn budgets it
plans for, the way replies are written, and whether the persuadee may walk away. :data:`V1` and
:data:`V2` are the two versions registered today (``tom/Persuasion-v1``, ``tom/Persuasion-v2`` and
their two-seat twins); a third is a third instance of :class:`MindVersion` plus its pieces (a model
builder, a reader, a planner), not a third set of env classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tom_envs.errors import TomEnvsError
from tom_envs.persuasion.mind import HEARD, Family, MindModel, MindPersona, MindState, model_for, reply_allowed
from tom_envs.persuasion.mind_v2 import HEARD_V2, model_v2_for, reply_allowed_v2
from tom_envs.persuasion.planning import check_horizon_v1, planner_for, references
from tom_envs.persuasion.planning_v2 import check_horizon_v2, point_planner_for, references_v2
from tom_envs.persuasion.reader import ReaderError, ReaderV2, ScriptedReader
from tom_envs.persuasion.scenarios import FAMILIES, FAMILIES_V2, family_named, family_v2_named


class UnknownVersion(TomEnvsError, ValueError):
    """A live-persuasion version number that has no configuration (:data:`VERSIONS` lists the known ones)."""


@dataclass(frozen=True)
class MindVersion:
    """What one version of live persuasion is made of.

    Attributes:
        number: the version (``info["version"]`` where ``in_info``; the ids' ``-vN`` suffix).
        families: the built-in scenario families (``families=None`` or ``"all"``).
        family_named: the built-in family of a name (raises for an unknown one).
        heard: the strategies a reader can hear, by index (``info["heard"]``); the observation's "heard"
            entry ranges over these and one more, "before the first line".
        model: compiles a family into its transition tables (a :class:`~tom_envs.persuasion.mind.MindModel`).
        planner: the fair persuader's planner of a model and turn budget (regret is measured against it).
        references: the family's reference success probabilities at a turn budget.
        check_horizon: the turn budgets it plans for (a named error past them).
        reader: builds the default reader of written lines.
        indirect_replies: replies voice concerns indirectly half the time
            (:func:`~tom_envs.persuasion.mind_text.reply_line`).
        walk_outs: the persuadee may walk away (the episode ends in failure; ``info["left"]``; the
            persuadee seat's "leave" reply).
        bounded: the references are bounds (the episode summary adds ``bayes_upper``).
        in_info: infos carry ``version`` (v1's never did; its records stay as they were).
        allows: whether a persuadee seat's reply (tone x topic) is one its mind could give:
            ``allows(persona, state, landed, drawn, reply)``.
    """

    number: int
    families: tuple[Family, ...]
    family_named: Callable[[str], Family]
    heard: tuple[str, ...]
    model: Callable[[Family], MindModel]
    planner: Callable[[MindModel, int], Any]
    references: Callable[[MindModel, int], Any]
    check_horizon: Callable[[Any], int]
    reader: Callable[[], Any]
    indirect_replies: bool
    walk_outs: bool
    bounded: bool
    in_info: bool
    allows: Callable[[MindPersona, MindState, bool, int, int], bool]

    @property
    def n_strategies(self) -> int:
        """How many strategies a reader can return (``0..n_strategies - 1``)."""
        return len(self.heard)

    def check_reading(self, value: object, reader: object = None) -> int:
        """A reader's output as a strategy index of this version.

        Raises:
            ReaderError: anything else, naming the reader, what came back and what a reader returns.
        """
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, np.integer))
            or not 0 <= value < self.n_strategies
        ):
            forms = ", ".join(f"{i} ({name})" for i, name in enumerate(self.heard))
            raise ReaderError(
                f"the reader {type(reader).__name__} returned {value!r}; a v{self.number} reader returns "
                f"a strategy index: {forms}"
            )
        return int(value)


V1 = MindVersion(
    number=1,
    families=FAMILIES,
    family_named=family_named,
    heard=HEARD,
    model=model_for,
    planner=planner_for,
    references=references,
    check_horizon=check_horizon_v1,
    reader=ScriptedReader,
    indirect_replies=False,
    walk_outs=False,
    bounded=False,
    in_info=False,
    allows=reply_allowed,
)
V2 = MindVersion(
    number=2,
    families=FAMILIES_V2,
    family_named=family_v2_named,
    heard=HEARD_V2,
    model=model_v2_for,
    planner=point_planner_for,
    references=references_v2,
    check_horizon=check_horizon_v2,
    reader=ReaderV2,
    indirect_replies=True,
    walk_outs=True,
    bounded=True,
    in_info=True,
    allows=reply_allowed_v2,
)
#: The versions by number.
VERSIONS: dict[int, MindVersion] = {v.number: v for v in (V1, V2)}


def version_for(number: Any) -> MindVersion:
    """The version numbered ``number`` (``info.get("version", 1)`` of a live-persuasion info).

    Raises:
        UnknownVersion: no such version (the known ones are listed).
    """
    try:
        return VERSIONS[int(number)]
    except (KeyError, TypeError, ValueError):
        raise UnknownVersion(f"live persuasion has versions {', '.join(map(str, VERSIONS))}; got {number!r}") from None


__all__ = ["MindVersion", "UnknownVersion", "V1", "V2", "VERSIONS", "version_for"]
