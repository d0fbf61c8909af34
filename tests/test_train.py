"""Training adapters (benchmarks/train; docs/training.md, issue 43): every family's task as rows played by
replies given from outside, the verifiers environment, scored as the suite's command scores the same replies.

The replies come from a rule (tests/test_inspect.py's), either handed in directly or served by the loopback
OpenAI-compatible server (tests/llm/scripted_server.py) to verifiers' own client; the reference is the
family's own command (``tom-envs <family> --policy llm --backend openai``) on the same rule.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_inspect import IPD_QA_COMMAND, matrix_rule, suite_rows, yes_no_rule

ROOT = Path(__file__).resolve().parent.parent


def play(row: dict, rule) -> tuple[dict, list[list[dict]]]:
    """Play ``row`` with ``rule`` answering each request's last message; the record and the prompts."""
    from benchmarks.train.tasks import make_episode

    episode = make_episode(row)
    turn, prompts = episode.start(), []
    while turn is not None:
        prompts.append(turn.messages)
        turn = episode.reply(rule(turn.messages[-1]["content"], None))
    return episode.record, prompts


def test_importing_the_suite_does_not_import_the_trainers():
    code = (
        "import sys, benchmarks, benchmarks.__main__, benchmarks.train.tasks, tom_envs; "
        "bad = [m for m in ('verifiers', 'trl', 'openenv', 'torch') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_every_family_has_training_rows():
    import tom_envs
    from benchmarks.train.tasks import rows, task, task_names
    from tom_envs.family import families

    covered = {tom_envs.REGISTRY[task(n).env_id].family for n in task_names()}
    assert covered >= {f.name for f in families() if f.benchmark and f.benchmark.startswith("benchmarks.")}
    train, test = rows("ipd", "train", episodes=3), rows("ipd", "test", episodes=3)
    assert [r["seed"] for r in train] == [0, 1, 2] and not {r["seed"] for r in train} & {r["seed"] for r in test}
    # the test split plays the partners tom-envs rl holds out
    from benchmarks.matrix.rl import split_partners

    assert json.loads(test[0]["options"])["partners"] == split_partners("tom/IPD-v0", "test")
    assert rows("ipd", "train", episodes=3) == train  # rows are deterministic


def test_a_stepped_episode_scores_as_the_suites_command_on_the_same_replies(tmp_path):
    from benchmarks.train.tasks import rows, score

    got = [
        score("ipd", play(r, matrix_rule)[0])
        for r in rows("ipd", None, episodes=2, params={"horizon": 4, "partners": "tit_for_tat"})
    ]
    with pytest.raises(Exception, match="set by the train split"):
        rows("ipd", "train", episodes=1, params={"partners": "random"})
    (row,) = suite_rows(
        matrix_rule,
        tmp_path,
        *IPD_QA_COMMAND,
    )
    rewards = [r for r, _ in got]
    assert sum(rewards) / 2 == pytest.approx(-row["regret_per_step"], abs=1e-12)
    assert sum(m["tom_accuracy"] for _, m in got) / 2 == pytest.approx(row["tom_accuracy"], abs=1e-12)


def test_a_question_row_is_right_when_the_protocol_reads_the_gold_answer():
    from benchmarks.train.tasks import rows, score

    row = rows("common_tom", "test", episodes=3)
    for r in row:
        record, prompts = play(r, yes_no_rule)
        reward, metrics = score("common_tom", record)
        assert reward == metrics["accuracy"] == float(record["index"] == record["answer"])
        assert len(prompts) >= 1


def test_misuse_is_a_named_error():
    from benchmarks.train.errors import TrainEnvError
    from benchmarks.train.tasks import make_episode, rows

    with pytest.raises(TrainEnvError, match="no family declares a task 'chess'"):
        rows("chess")
    with pytest.raises(TrainEnvError, match="split must be one of train, test"):
        rows("ipd", "valid")
    episode = make_episode(rows("ipd", "train", episodes=1, params={"horizon": 2})[0])
    with pytest.raises(TrainEnvError, match="start\\(\\) the episode first"):
        episode.reply("Answer: J")
    assert episode.start() is not None
    with pytest.raises(TrainEnvError, match="has started already"):
        episode.start()
    with pytest.raises(TrainEnvError, match="model's text"):
        episode.reply(3)  # type: ignore[arg-type]
    episode.close()
    with pytest.raises(TrainEnvError, match="has no model role judges"):
        make_episode(rows("persuasion", "train", episodes=1)[0], roles={"judges": object()})
    from benchmarks.train.grpo import main

    with pytest.raises(TrainEnvError, match="--max-completion must be at least 1, got 0"):
        main(["--max-completion", "0"])


@pytest.mark.slow  # importing torch and transformers: 8-20 s on the 2-core machine
def test_the_answer_cue_prefills_the_reply_the_suite_reads(tmp_path):
    """With the cue, the prompt ends with its tokens, at most --max-completion tokens are generated, and the
    reply the family's parser reads is cue + completion: the outcome equals the suite's play of those replies."""
    pytest.importorskip("transformers")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from benchmarks.train.grpo import Player
    from benchmarks.train.tasks import rows, score
    from tests.llm.tiny_model import build_tiny_llama

    folder = build_tiny_llama(tmp_path / "tiny")  # a real (random) Llama: what the model writes does not matter
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    player = Player(model, tokenizer, cue="Answer:", max_completion=2)
    row = rows("ipd", "test", episodes=1, params={"horizon": 1, "max_resamples": 0, "fallback": "random"})[0]
    played = player.play(dict(row), sample=False, temperature=1.0)
    cue = tokenizer("Answer:", add_special_tokens=False)["input_ids"]
    assert played["prompt_ids"][-len(cue) :] == cue and 1 <= len(played["completion_ids"]) <= 2
    assert len(played["replies"]) == 2 and all(r.startswith("Answer:") for r in played["replies"])
    record, _ = play(row, lambda content, seed, given=iter(played["replies"]): next(given))
    assert score("ipd", record) == (played["reward"], played["metrics"])
    assert Player(model, tokenizer, cue="Answer:", max_completion=2).play(dict(row), False, 1.0) == played


def test_the_prompts_the_adapter_sends_keep_the_information_rule():
    """The checker plays the env while each observation goes through the family's LLM prompt builder; what it
    reads is the prompt the adapter sends, and its positive control must be caught."""
    from benchmarks.matrix.prompt_view import prompt_view
    from tom_envs.checks import check_information_rule

    report = check_information_rule(lambda: prompt_view("ipd", horizon=6), episodes=24)
    assert report.ok, report.leaks
    assert "no power" not in str(report)


# ------------------------------------------------------------------------------------------ verifiers
vf = pytest.importorskip("verifiers")


def _evaluate(env, url: str, n: int):
    client = vf.ClientConfig(api_base_url=url, api_key_var="SCRIPTED_API_KEY")
    return asyncio.run(
        env.evaluate(
            client=client,
            model="scripted",
            sampling_args={"temperature": 0.0},
            num_examples=n,
            rollouts_per_example=1,
            on_progress=lambda *a, **k: None,
        )
    )


def test_verifiers_environment_scores_equal_the_suites_command(tmp_path, monkeypatch):
    from benchmarks.train.verifiers_env import load_environment
    from tests.llm.scripted_server import ScriptedServer

    monkeypatch.setenv("SCRIPTED_API_KEY", "none")
    env = load_environment(
        "ipd", split=None, episodes=2, eval_split=None, eval_episodes=2, horizon=4, partners="tit_for_tat"
    )
    assert isinstance(env, vf.MultiTurnEnv)
    server = ScriptedServer(matrix_rule)
    try:
        out = _evaluate(env, server.url, 2)
    finally:
        server.close()
    rewards = [o["reward"] for o in out["outputs"]] if isinstance(out, dict) else list(out.reward)
    (row,) = suite_rows(
        matrix_rule,
        tmp_path,
        *IPD_QA_COMMAND,
    )
    assert sum(rewards) / 2 == pytest.approx(-row["regret_per_step"], abs=1e-12)


# ------------------------------------------------------------------------------------------ OpenEnv
def _serve(app):
    """uvicorn serving ``app`` on 127.0.0.1 (a free port) in a daemon thread; (server, base URL)."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    return server, f"http://127.0.0.1:{port}"


def test_openenv_server_passes_its_own_clients_round_trip():
    pytest.importorskip("openenv")
    from benchmarks.train.openenv_server import TomAction, TomEnvClient, make_app
    from benchmarks.train.tasks import rows, score

    server, url = _serve(make_app("ipd", None, {"horizon": 3, "partners": "tit_for_tat"}))
    try:
        with TomEnvClient(base_url=url).sync() as client:
            for seed in (0, 1):
                result = client.reset(seed=seed)
                assert result.observation.messages and not result.done and result.observation.seed == seed
                steps = 0
                while not result.done:
                    result = client.step(TomAction(reply=matrix_rule(result.observation.messages[-1]["content"], None)))
                    steps += 1
                state = client.state()
                assert state.step_count == steps and state.seed == seed and state.task == "ipd"
                record, _ = play(
                    rows("ipd", None, episodes=1, seed=seed, params={"horizon": 3, "partners": "tit_for_tat"})[0],
                    matrix_rule,
                )
                assert (result.reward, result.observation.metrics) == score("ipd", record)
    finally:
        server.should_exit = True


@pytest.mark.slow
# TRL's own imports: torch's deprecation of torch.jit.script_method (in a dependency of TRL's trainer)
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_grpo_smoke_run_steps_the_openenv_server_from_trls_rollout(tmp_path):
    """One GRPO step of TRL's GRPOTrainer on the real small model, its rollout_func playing every training
    episode on the OpenEnv server; the held-out figures and the curve are written."""
    pytest.importorskip("trl")
    pytest.importorskip("openenv")
    from benchmarks.train.grpo import main
    from benchmarks.train.openenv_server import make_app

    params = {"horizon": 1, "max_resamples": 0, "fallback": "random"}
    server, url = _serve(make_app("ipd", "train", params))
    try:
        result = main(
            [
                "--task",
                "ipd",
                "--horizon",
                "1",
                "--steps",
                "1",
                "--episodes",
                "2",
                "--eval-episodes",
                "2",
                "--generations",
                "2",
                "--batch",
                "2",
                "--max-resamples",
                "0",
                "--env-url",
                url.replace("http", "ws"),
                "--out",
                str(tmp_path),
            ]
        )
    finally:
        server.should_exit = True
    assert len(result["curve"]) == 1 and result["before"]["episodes"] == result["after"]["episodes"] == 2
    assert (tmp_path / "grpo.json").exists() and (tmp_path / "grpo.png").stat().st_size > 0


def _tiny_grpo_args(folder: Path, out: Path, steps: int) -> list[str]:
    return [
        *("--model", str(folder), "--task", "ipd", "--horizon", "1", "--steps", str(steps), "--save-steps", "1"),
        *("--episodes", "4", "--eval-episodes", "2", "--generations", "2", "--batch", "2", "--max-resamples", "0"),
        *("--out", str(out)),
    ]


@pytest.mark.slow  # torch, TRL and two short runs of the tiny random Llama (3 steps each): about 60 s on the 2-core machine
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_a_killed_grpo_run_resumes_from_its_last_checkpoint_to_the_same_result(tmp_path):
    """The run is killed (SIGKILL) once a checkpoint is on disk; the rerun reads the held-out figures it measured
    before, keeps the curve up to the checkpoint and ends where an uninterrupted run ends. A finished run's rerun
    returns its result, and a folder of another run's settings is refused."""
    pytest.importorskip("trl")
    import signal

    from benchmarks.train.errors import TrainEnvError
    from benchmarks.train.grpo import main
    from tests.llm.tiny_model import build_tiny_llama

    folder = build_tiny_llama(tmp_path / "tiny")
    whole = main(_tiny_grpo_args(folder, tmp_path / "whole", 3))
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.train.grpo", *_tiny_grpo_args(folder, out, 3)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while proc.poll() is None and not list((out / "trainer").glob("checkpoint-*/trainer_state.json")):
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    if (out / "grpo.json").exists():
        pytest.fail("the run finished before a checkpoint was seen: make it longer")
    resumed = main(_tiny_grpo_args(folder, out, 3))
    assert resumed["resumed_from_step"] >= 1
    strip = ("seconds",)
    assert [{k: v for k, v in p.items() if k not in strip} for p in resumed["curve"]] == [
        {k: v for k, v in p.items() if k not in strip} for p in whole["curve"]
    ]
    assert (resumed["before"], resumed["after"]) == (whole["before"], whole["after"])
    assert main(_tiny_grpo_args(folder, out, 3)) == json.loads((out / "grpo.json").read_text())
    with pytest.raises(TrainEnvError, match="other settings \\(steps differ\\)"):
        main(_tiny_grpo_args(folder, out, 4))
