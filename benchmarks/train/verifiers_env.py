"""The suite as a ``verifiers`` environment: ``vf.load_environment("benchmarks.train.verifiers_env", task=...)``.

Installed with ``pip install 'tom-envs[train]'`` (docs/training.md). :func:`load_environment`
returns a ``vf.MultiTurnEnv`` over one declared task of any family (:mod:`benchmarks.train.tasks`):

* dataset rows: one per episode (or scored question) of the ``split`` (train by default; the eval
  dataset the ``eval_split``, test by default), each row's ``info["tom_envs"]`` naming its task, env
  id, seed, split and key; its ``prompt`` the family's first prompt (its own LLM prompt builder);
* ``env_response``: the reply goes to the family's own policy, which parses it with the suite's
  parser (re-asking as the family's command does), steps the env (scripted partners, the persuadee,
  the parties act inside) and asks again: the next prompt is the suite's next request;
* stop: the episode's end (terminated or truncated, every question answered);
* rubric: ``reward`` (weight 1) is the functional outcome (:func:`benchmarks.train.tasks.score`:
  a return, or a regret negated; a question's correctness), and every metric the task scores, the
  literal ToM among them, is a weight-0 metric.

Each turn's prompt is exactly the suite's request (the family's prompt carries its own history), so
a model answers here what it would answer in ``tom-envs <family> --policy llm``; the conversation
shown as the completion is the turns one after another. Model seats other than the trained one
(e.g. ``persuadee``) are ``roles={"persuadee": {"base_url": ..., "model": ...}}`` (the suite's
OpenAI-compatible backend); scripted seats need nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import verifiers as vf

from benchmarks.train.errors import TrainEnvError
from benchmarks.train.tasks import make_episode, rows, score, task

__all__ = ["TomEnvsEnv", "dataset", "load_environment"]


def dataset(name: str, split: str | None, episodes: int, seed: int, params: Mapping[str, Any]) -> Any:
    """The rows as a ``datasets.Dataset`` of ``prompt`` (the first request's messages), ``answer``
    (empty: the env scores) and ``info`` (``{"tom_envs": row}``)."""
    from datasets import Dataset

    out = []
    for row in rows(name, split, episodes=episodes, seed=seed, params=params):
        episode = make_episode(row)
        first = episode.start()
        episode.close()
        if first is None:
            raise TrainEnvError(f"{name} seed {row['seed']} ended before the model was asked anything")
        # the row under a key of its own: verifiers reads info["task"] and info["env_id"] itself
        out.append({"prompt": first.messages, "answer": "", "info": {"tom_envs": dict(row)}})
    return Dataset.from_list(out)


def _backend(role: str, spec: Any) -> Any:
    if hasattr(spec, "generate"):
        return spec
    if not isinstance(spec, Mapping) or "base_url" not in spec or "model" not in spec:
        raise TrainEnvError(f"roles[{role!r}] must be a backend or {{'base_url': ..., 'model': ...}}, got {spec!r}")
    from policies.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(str(spec["base_url"]), str(spec["model"]))


class TomEnvsEnv(vf.MultiTurnEnv):
    """A declared task of the suite as a multi-turn environment (see the module's docstring)."""

    def __init__(self, name: str, roles: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        self.task_name = name
        self.roles = {r: _backend(r, b) for r, b in (roles or {}).items()}
        rubric = vf.Rubric()
        rubric.add_reward_func(self.reward, weight=1.0)
        spec = task(name)
        for key in getattr(spec, "metrics", ("accuracy",)) if hasattr(spec, "play") else ("accuracy", "unread"):
            rubric.add_metric(_metric(key), weight=0.0)
        super().__init__(rubric=rubric, **kwargs)

    async def setup_state(self, state: Any) -> Any:
        info = dict(state["info"]["tom_envs"])
        episode = make_episode(info, self.roles)
        first = await asyncio.to_thread(episode.start)
        if first is None or first.messages != list(state["prompt"]):
            episode.close()
            raise TrainEnvError(
                f"{info['task']} seed {info['seed']}: the episode's first prompt is not the row's "
                "(the row was made with other options or another version of the suite)"
            )
        state["tom_envs"] = {"episode": episode, "reward": None, "metrics": {}, "prompts": [first.messages]}
        return state

    async def get_prompt_messages(self, state: Any) -> Any:
        """The suite's own request for this turn (its prompt holds the history it shows)."""
        if len(state["trajectory"]) == 0:
            return state["prompt"]
        last = state["trajectory"][-1]
        return await self.env_response([*last["prompt"], *last["completion"]], state)

    async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
        """Hand the model's last reply to the family's policy; the next prompt, or [] at the end."""
        own = state["tom_envs"]
        reply = _text(messages[-1]) if messages and _role(messages[-1]) == "assistant" else ""
        turn = await asyncio.to_thread(own["episode"].reply, reply)
        if turn is None:
            own["reward"], own["metrics"] = score(self.task_name, own["episode"].record or {})
            state["final_env_response"] = []
            return []
        own["prompts"].append(turn.messages)
        return turn.messages

    async def render_completion(self, state: Any) -> None:
        """The turns one after another: each later prompt's last message, then the reply."""
        out: list[Any] = []
        for i, step in enumerate(state["trajectory"]):
            if i:
                out.append(step["prompt"][-1])
            out.extend(step["completion"])
        state["completion"] = out

    @vf.cleanup
    async def close_episode(self, state: Any) -> None:
        own = state.get("tom_envs")
        if own is not None:
            own["episode"].close()

    async def reward(self, state: Any, **kwargs: Any) -> float:
        """The functional outcome (a question: 1 when right); an unfinished episode is an error."""
        own = state.get("tom_envs") or {}
        if own.get("reward") is None:
            raise TrainEnvError(
                f"{self.task_name}: the episode did not end (stopped by "
                f"{state.get('stop_condition')!r}); lower the task's horizon or raise the env's max_turns"
            )
        return float(own["reward"])


def _metric(key: str) -> Any:
    async def metric(state: Any, **kwargs: Any) -> float:
        value = (state.get("tom_envs") or {}).get("metrics", {}).get(key)
        return float("nan") if value is None else float(value)

    metric.__name__ = key
    return metric


def _role(message: Any) -> str:
    return str(message["role"] if isinstance(message, Mapping) else getattr(message, "role", ""))


def _text(message: Any) -> str:
    content = message["content"] if isinstance(message, Mapping) else getattr(message, "content", "")
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) if isinstance(p, Mapping) else str(getattr(p, "text", "")) for p in content
        )
    return str(content or "")


def load_environment(
    task: str = "rps",
    split: str | None = "train",
    episodes: int = 8,
    seed: int = 0,
    eval_split: str | None = "test",
    eval_episodes: int | None = None,
    roles: Mapping[str, Any] | None = None,
    **params: Any,
) -> TomEnvsEnv:
    """A declared task of the suite as a ``vf.MultiTurnEnv``.

    Args:
        task: a declared task's name (``rps``, ``ipd``, ``common_tom``, ``persuasion``, ...:
            :func:`benchmarks.train.tasks.task_names`).
        split: the training dataset's split (``train`` or ``test``, as ``tom-envs rl``'s; None: no split,
            the task's parameters as given, as the family's command plays them).
        episodes: training rows (episodes; for a QA task the first questions, 0: all).
        seed: the first seed (the test split's seeds start ``TEST_SEEDS`` above it).
        eval_split, eval_episodes: the eval dataset (default as many rows as ``episodes``).
        roles: backends of the other model seats (``{"persuadee": {"base_url": ..., "model": ...}}``).
        **params: the task's parameters, as ``inspect eval tom_envs/<task> -T NAME=VALUE``
            (``horizon``, ``partners``, ``strategy``, ``max_resamples``, ``fallback``, ...).
    """
    data = dataset(task, split, episodes, seed, params)
    held = dataset(task, eval_split, episodes if eval_episodes is None else eval_episodes, seed, params)
    return TomEnvsEnv(
        task,
        roles=roles,
        dataset=data,
        eval_dataset=held,
        max_turns=-1,
        env_id=f"tom-envs/{task}",
        env_args={"task": task, "split": split, **params},
    )
