"""The persuasion family (seed 001, PersuasiveToM).

Two kinds of environment live here:

* :class:`~tom_envs.persuasion.qa_env.PersuasiveToMEnv` -- the published PersuasiveToM questions
  asked turn by turn over each dialogue (literal ToM: desire, belief, intention, strategy).
* :class:`~tom_envs.persuasion.mind_env.PersuasionMindEnv` (``tom/Persuasion-v1``) -- live persuasion
  against a simulated persuadee whose desire, belief and intention are hidden
  (:mod:`~tom_envs.persuasion.mind`), with exact references (:mod:`~tom_envs.persuasion.planning`),
  plus a two-seat PettingZoo version (:mod:`~tom_envs.persuasion.mind_two_seat`) whose persuadee seat
  voices that mind. ``tom/Persuasion-v2`` and its two-seat twin are the same two classes configured by
  :data:`~tom_envs.persuasion.versions.V2` (:mod:`~tom_envs.persuasion.versions`: what a version changes).
  The retired v0 ids raise ``UnknownEnvironment`` naming these.

Nothing heavy is imported here; the modules are imported on use.
"""

from __future__ import annotations

from pathlib import Path

#: The eight published question files, in the column order of 001's Table 5.
QTYPES: tuple[str, ...] = (
    "desire_er",
    "belief_er",
    "intent_er",
    "desire_ee",
    "belief_ee",
    "intent_ee",
    "behavior_qa",
    "judge_qa",
)

#: Folder of the small sample dataset bundled with the package (written by us, published format).
SAMPLE_DATA_DIR: Path = Path(__file__).resolve().parent / "sample_data"

__all__ = ["QTYPES", "SAMPLE_DATA_DIR"]
