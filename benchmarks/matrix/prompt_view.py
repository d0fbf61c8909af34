"""What the training adapters (benchmarks/train) send a model in a matrix game, as an env the
information-rule checker can play.

:func:`prompt_view` wraps a matrix game exactly as the matrix tasks play it (the family's cell env,
:func:`benchmarks.runner_envs.make_env`) and replaces each observation with the prompts the family's LLM
policy (:func:`policies.matrix.llm.make_llm_policy`, the one the adapters run) builds from it: the texts the
adapter hands the model that round, prediction and action stages joined. The checker
(:func:`tom_envs.checks.check_information_rule`) then reads those prompts, words and numbers, against the
unwrapped env's truths; its own actions drive the env. The policy's replies are not needed to build a
prompt: they are left empty and its fallback fills in a valid answer (max_resamples 0).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

from policies.llm.base import Backend, BackendStats, ChatRequest, Generation, ScoreRequest

__all__ = ["PromptView", "prompt_view"]


class _Recorder(Backend):
    """Keeps every request's messages; replies with nothing (the policy falls back to a valid answer)."""

    def __init__(self) -> None:
        self.stats = BackendStats()
        self.sent: list[list[dict[str, Any]]] = []

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        self.sent += [[dict(m) for m in r.messages] for r in requests]
        return [Generation("", 0, 0) for _ in requests]

    def score(self, requests: Sequence[ScoreRequest]) -> list[list[float]]:
        raise NotImplementedError("the prompt view builds generating prompts only")

    def close(self) -> None:
        """Nothing to release."""


class PromptView(gym.Wrapper):
    """Observation: the prompts the adapter sends the model this round (one string)."""

    def __init__(self, env: Any, policy: Any, backend: _Recorder) -> None:
        super().__init__(env)
        self.policy, self.backend = policy, backend
        self.observation_space = gym.spaces.Text(max_length=200_000, charset=string.printable)

    def _prompts(self, obs: Any, info: dict) -> str:
        start = len(self.backend.sent)
        self.policy.predict_batch([obs], [info])
        self.policy.act_batch([obs], [info])
        return "\n\n".join(m["content"] for msgs in self.backend.sent[start:] for m in msgs)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.policy.reset_batch([seed])
        return self._prompts(obs, info), {}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        obs, reward, term, trunc, info = self.env.step(action)
        self.policy.observe_batch([obs], [reward], [term], [trunc], [info])
        text = "" if term or trunc else self._prompts(obs, info)
        return text, float(reward), bool(term), bool(trunc), {}


def prompt_view(task: str, *, horizon: int = 10, split: str = "train", **params: Any) -> PromptView:
    """The matrix task ``task`` (``rps``, ``ipd``, ``ibs``) on ``split``'s partners, seen through its prompts."""
    from benchmarks.runner_envs import make_env
    from benchmarks.train.tasks import train_options
    from benchmarks.train.tasks import task as declared
    from policies.matrix.llm import make_llm_policy
    from tom_envs import REGISTRY

    spec = declared(task)
    options = train_options(spec, split, {**params, "horizon": horizon})
    game = REGISTRY[str(options["env"])].kwargs["game"]
    backend = _Recorder()
    policy = make_llm_policy(
        str(options["strategy"]),
        backend,
        game,
        label_set=options["label_set"],
        horizon=horizon,
        seed=0,
        max_resamples=0,
        fallback="random",
    )
    env = make_env(str(options["env"]), record=False, partners=options["partners"], horizon=horizon)
    return PromptView(env, policy, backend)
