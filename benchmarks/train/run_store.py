"""What a GRPO run (:mod:`benchmarks.train.grpo`) keeps in its ``--out`` folder, written as it is produced, so
that a rerun with the same settings resumes instead of starting again.

* ``settings.json`` -- the run's settings (every option but ``--out``); a folder holding another run's
  settings is refused (:class:`~benchmarks.train.errors.TrainEnvError`), never mixed.
* ``before.json`` -- the held-out figures before training (the raw model and the model GRPO starts from),
  written once they are measured and read back by a rerun.
* ``curve.jsonl`` -- one line per optimizer step, appended as the step's rollout ends.
* ``trainer/checkpoint-N`` -- TRL's checkpoints (model, optimizer, scheduler and RNG states); a rerun
  resumes from the last one and keeps the curve up to its step.
* ``grpo.json`` -- the finished run's result; a rerun of a finished run returns it and does nothing else.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchmarks.train.errors import TrainEnvError

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


class RunStore:
    """The ``--out`` folder of one GRPO run with ``settings`` (a JSON-able dict)."""

    def __init__(self, out: str | Path, settings: dict[str, Any]) -> None:
        self.out = Path(out)
        self.settings = json.loads(json.dumps(settings, sort_keys=True, default=str))
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / "settings.json"
        if path.exists():
            kept = json.loads(path.read_text())
            if kept != self.settings:
                changed = sorted(k for k in set(kept) | set(self.settings) if kept.get(k) != self.settings.get(k))
                raise TrainEnvError(
                    f"{self.out} holds a GRPO run with other settings ({', '.join(changed)} differ); give another "
                    "--out, or delete the folder to start that run again"
                )
        else:
            path.write_text(json.dumps(self.settings, indent=1, sort_keys=True))

    @property
    def trainer_dir(self) -> Path:
        return self.out / "trainer"

    def finished(self) -> dict[str, Any] | None:
        """The finished run's result, or None."""
        path = self.out / "grpo.json"
        return json.loads(path.read_text()) if path.exists() else None

    def before(self) -> dict[str, Any] | None:
        """The held-out figures before training, if measured already."""
        path = self.out / "before.json"
        return json.loads(path.read_text()) if path.exists() else None

    def save_before(self, figures: dict[str, Any]) -> None:
        _write(self.out / "before.json", figures)

    def last_checkpoint(self) -> Path | None:
        """The trainer's checkpoint with the most steps, or None."""
        found = [
            (int(m.group(1)), p)
            for p in (self.trainer_dir.iterdir() if self.trainer_dir.is_dir() else [])
            if (m := _CHECKPOINT.match(p.name)) and p.is_dir()
        ]
        return max(found)[1] if found else None

    def curve(self, upto: int) -> list[dict[str, Any]]:
        """The curve's steps 1..``upto`` (those a checkpoint holds); later lines are dropped from the file, since the
        resumed run plays those steps again."""
        path = self.out / "curve.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines() if line] if path.exists() else []
        kept = [point for point in lines if point["step"] <= upto]
        path.write_text("".join(json.dumps(point) + "\n" for point in kept))
        if len(kept) != upto:
            raise TrainEnvError(
                f"{path} has {len(kept)} of the {upto} steps its last checkpoint holds; delete {self.out} to start again"
            )
        return kept

    def add_point(self, point: dict[str, Any]) -> None:
        with (self.out / "curve.jsonl").open("a") as f:
            f.write(json.dumps(point) + "\n")

    def finish(self, result: dict[str, Any]) -> None:
        _write(self.out / "grpo.json", result)


def _write(path: Path, data: dict[str, Any]) -> None:
    """``data`` as JSON at ``path``, whole or not at all (written beside it, then renamed)."""
    part = path.with_suffix(path.suffix + ".part")
    part.write_text(json.dumps(data, indent=1, default=str))
    part.replace(path)
