"""Append one JSON line per finished episode, written as soon as the episode ends."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tom_envs.errors import TomEnvsError


def to_jsonable(value: Any) -> Any:
    """A JSON-friendly copy of ``value``: numpy scalars/arrays become Python numbers/lists,
    sets become sorted lists, non-finite floats become None, and objects that have no JSON form
    (e.g. an oracle solution) are dropped (returned as the sentinel :data:`DROP`)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            j = to_jsonable(v)
            if j is not DROP:
                out[str(k)] = j
        return out
    if isinstance(value, (set, frozenset)):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [j for j in (to_jsonable(v) for v in value) if j is not DROP]
    return DROP


DROP = object()


class JSONLEpisodeLog(gym.Wrapper):
    """Logs every finished episode as one JSON line appended to ``path``.

    A line holds ``env_id``, ``episode`` (index within this wrapper), ``seed`` (if one was given
    to reset), the reset info, ``steps`` (per step: ``action``, ``reward`` and the step's info,
    made JSON-friendly), ``return`` and ``rounds``. The line is written and flushed as soon as the
    episode ends, so a killed run loses at most the episode in flight.

    Args:
        env: any Gymnasium env.
        path: the JSONL file (parent directories are created; existing lines are kept).
    """

    def __init__(self, env: gym.Env, path: "str | os.PathLike[str]") -> None:
        super().__init__(env)
        self.path = Path(path)
        if self.path.is_dir():
            raise TomEnvsError(
                f"JSONLEpisodeLog needs a file path, got the folder {str(self.path)!r} (e.g. "
                f"{str(self.path / 'episodes.jsonl')!r})"
            )
        blocking = next((p for p in self.path.parents if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            raise TomEnvsError(
                f"JSONLEpisodeLog cannot write {str(self.path)!r}: {str(blocking)!r} is a file, not a "
                "folder; give a path under a folder"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._episode = -1
        self._record: dict[str, Any] | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._episode += 1
        spec = self.env.spec
        self._record = {
            "env_id": spec.id if spec is not None else None,
            "episode": self._episode,
            "seed": seed,
            "reset_info": to_jsonable(info),
            "steps": [],
            "return": 0.0,
        }
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._record is not None:
            self._record["steps"].append(
                {"action": to_jsonable(action), "reward": to_jsonable(reward), "info": to_jsonable(info)}
            )
            self._record["return"] += float(reward)
            if terminated or truncated:
                self._record["rounds"] = len(self._record["steps"])
                self._write(self._record)
                self._record = None
        return obs, reward, terminated, truncated, info

    def _write(self, record: dict[str, Any]) -> None:
        # opened per episode: nothing is left buffered or open if the process dies
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
