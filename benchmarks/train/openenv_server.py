"""The suite as an OpenEnv environment server: ``python -m benchmarks.train.openenv_server --task ipd``.

OpenEnv's Gym-style client-server API (``openenv-core``: ``Environment`` on the server, ``EnvClient``
over WebSocket, typed actions and observations) over the same rows as the verifiers adapter
(:mod:`benchmarks.train.tasks`): ``reset(seed=...)`` starts an episode of the task (a QA task: the
``seed``-th question of the split) and returns the suite's first prompt; ``step(TomAction(reply=...))``
hands the model's reply to the family's policy (parsed by the suite, the env stepped with its scripted
seats inside) and returns the next prompt, or, at the episode's end, ``done`` with the reward (the
functional outcome, :func:`benchmarks.train.tasks.score`) and the metrics (literal ToM among them).
Ground truth never reaches an observation before the end: an observation is the prompt the suite sends.

TRL's ``GRPOTrainer`` consumes it from a ``rollout_func`` that steps :class:`TomEnvClient`
(``python -m benchmarks.train.grpo --env-url ws://...``; docs/training.md).
"""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from benchmarks.train.errors import TrainEnvError
from benchmarks.train.tasks import make_episode, rows, score, task

__all__ = ["TomAction", "TomEnvClient", "TomEnvironment", "TomObservation", "TomState", "make_app", "main"]


class TomAction(Action):
    """The model's reply to the last prompt."""

    reply: str = Field(description="the model's reply text, as the family's parser reads it")


class TomObservation(Observation):
    """The suite's next prompt (empty at the end), the row it belongs to, and, at the end, the metrics."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description="chat messages of the next prompt")
    max_tokens: int | None = Field(default=None, description="the token cap the family's command sends with it")
    temperature: float | None = Field(default=None, description="the temperature the family's command sends")
    task: str = ""
    env_id: str = ""
    seed: int = 0
    split: str | None = None
    metrics: dict[str, float | None] = Field(default_factory=dict, description="the episode's metrics (at the end)")


class TomState(State):
    """The episode's row and how many prompts it has sent."""

    task: str = ""
    env_id: str = ""
    seed: int = 0
    split: str | None = None
    turns: int = 0


class TomEnvironment(Environment):
    """One session's episodes of a declared task (see the module's docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self, task_name: str = "ipd", split: str | None = "train", params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__()
        self.spec = task(task_name)
        self.task_name, self.split, self.params = task_name, split, dict(params or {})
        self.episode: Any = None
        self._state = TomState()

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> TomObservation:
        if self.episode is not None:
            self.episode.close()
        seed = 0 if seed is None else int(seed)
        if seed < 0:
            raise TrainEnvError(f"seed must be >= 0, got {seed}")
        if hasattr(self.spec, "items"):  # a QA task: the seed-th question of the split
            found = rows(self.task_name, self.split, episodes=seed + 1, params=self.params)
            if len(found) <= seed:
                raise TrainEnvError(
                    f"{self.task_name} has {len(found)} questions on this split; seed {seed} is past them"
                )
            row = found[seed]
        else:
            row = rows(self.task_name, self.split, episodes=1, seed=seed, params=self.params)[0]
        self.episode = make_episode(row)
        self._state = TomState(
            episode_id=episode_id or str(uuid.uuid4()),
            step_count=0,
            task=self.task_name,
            env_id=row["env_id"],
            seed=int(row["seed"]),
            split=self.split,
            turns=0,
        )
        return self._observe(self.episode.start())

    def step(self, action: TomAction, timeout_s: float | None = None, **kwargs: Any) -> TomObservation:
        if self.episode is None:
            raise TrainEnvError("step before reset: call reset(seed=...) first")
        if self.episode.done:
            raise TrainEnvError("the episode has ended: call reset(seed=...) for the next one")
        self._state.step_count += 1
        return self._observe(self.episode.reply(action.reply))

    def _observe(self, turn: Any) -> TomObservation:
        base = {"task": self.task_name, "env_id": self._state.env_id, "seed": self._state.seed, "split": self.split}
        if turn is not None:
            self._state.turns += 1
            return TomObservation(
                messages=turn.messages,
                max_tokens=turn.max_tokens,
                temperature=turn.temperature,
                done=False,
                reward=None,
                **base,
            )
        reward, metrics = score(self.task_name, self.episode.record or {})
        return TomObservation(messages=[], done=True, reward=reward, metrics=metrics, **base)

    @property
    def state(self) -> TomState:
        return self._state

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()


class TomEnvClient(EnvClient[TomAction, TomObservation, TomState]):
    """OpenEnv's WebSocket client for :class:`TomEnvironment` (``async with TomEnvClient(base_url=...)``,
    or ``.sync()``)."""

    def _step_payload(self, action: TomAction) -> dict[str, Any]:
        return {"reply": action.reply}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[TomObservation]:
        obs = TomObservation(
            **payload.get("observation", {}), done=bool(payload.get("done", False)), reward=payload.get("reward")
        )
        return StepResult(observation=obs, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: dict[str, Any]) -> TomState:
        return TomState(**payload)


def make_app(
    task_name: str = "ipd", split: str | None = "train", params: Mapping[str, Any] | None = None, max_sessions: int = 8
) -> Any:
    """The FastAPI app serving :class:`TomEnvironment` (one environment per WebSocket session)."""
    from openenv.core.env_server.http_server import create_fastapi_app

    task(task_name)  # an unknown task is an error now, not at the first session
    return create_fastapi_app(
        lambda: TomEnvironment(task_name, split, params), TomAction, TomObservation, max_concurrent_envs=max_sessions
    )


def _param(text: str) -> tuple[str, Any]:
    import json

    if "=" not in text:
        raise TrainEnvError(f"-T takes NAME=VALUE, got {text!r}")
    name, value = text.split("=", 1)
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.train.openenv_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--task", default="ipd", help="a declared task (benchmarks.train.tasks.task_names())")
    parser.add_argument("--split", default="train", choices=["train", "test", "none"])
    parser.add_argument(
        "-T",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a task parameter, as inspect eval tom_envs/<task> -T takes it (e.g. -T horizon=5)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-sessions", type=int, default=8)
    args = parser.parse_args(argv)
    import uvicorn

    app = make_app(
        args.task, None if args.split == "none" else args.split, dict(map(_param, args.params)), args.max_sessions
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
