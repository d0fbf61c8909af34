"""Bad input the API and the CLI used to accept silently (issue 44's list): each is now a named error that says
what was wrong and how to fix it."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks.__main__ import main
from benchmarks.report import ReportError, build_report
from tom_envs.errors import TomEnvsError
from wrappers import AECToMRecorder, ToMRecorder


def test_a_prediction_before_reset_is_a_named_error_not_dropped():
    env = ToMRecorder(gym.make("tom/IPD-v0"))
    with pytest.raises(TomEnvsError, match=r"before reset\(\).*call reset\(\) first"):
        env.record_prediction(1)
    env.reset(seed=0)
    env.record_prediction(1)  # after reset it is taken, and scored on the step
    env.step(0)
    assert env.last_record["correct"] in (True, False)


def test_a_prediction_before_reset_is_a_named_error_in_the_aec_recorder_too():
    from tom_envs.negotiation import NegotiationEnv

    env = AECToMRecorder(NegotiationEnv(scenario="hopkins_hmo", conflict_mode="general"))
    with pytest.raises(TomEnvsError, match="AECToMRecorder.record_prediction"):
        env.record_prediction({"stances": {}})


@pytest.mark.parametrize("url", ["not a url", "127.0.0.1:8000/v1", "ftp://host/v1", "http://", ""])
def test_the_openai_backend_refuses_a_base_url_that_is_not_one(url):
    pytest.importorskip("openai")
    from policies.llm import InvalidRequest, OpenAIBackend

    with pytest.raises(InvalidRequest, match="not an http.s. URL with a host"):
        OpenAIBackend(base_url=url, model="m")


@pytest.mark.parametrize("games", ["IPD,,RPS", "IPD,", ",IPD"])
def test_an_empty_list_item_is_a_usage_error(games, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["matrix", "--games", games, "--episodes", "1", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "empty game" in capsys.readouterr().err
    assert not any(tmp_path.rglob("*.jsonl"))


def test_a_report_over_only_corrupt_records_fails_with_a_message(tmp_path, capsys):
    res = tmp_path / "res"
    assert (
        main(
            [
                "matrix",
                "--games",
                "IPD",
                "--partners",
                "tit_for_tat",
                "--policy",
                "random",
                "--episodes",
                "2",
                "--horizon",
                "5",
                "--out",
                str(res),
            ]
        )
        == 0
    )
    files = list(res.rglob("*.jsonl"))
    assert files
    good = build_report(res, tmp_path / "ok")
    assert good["rebuilt"] == ["matrix"]
    for f in files:
        f.write_text("{not json\n" + json.dumps([1, 2]) + "\n")
    with pytest.raises(ReportError, match="no readable record"):
        build_report(res, tmp_path / "report", force=True)
    capsys.readouterr()
    assert main(["report", str(res), "--out", str(tmp_path / "report2")]) != 0
    assert "no readable record" in capsys.readouterr().err


@pytest.mark.parametrize(
    "value, what, message",
    [
        ("path/to/model", "model", "no such model folder"),
        ("./missing-model", "model", "no such model folder"),
        ("~/surely/not/here", "tokenizer", "no such tokenizer folder"),
        ("EMPTY_FOLDER", "model", "has no config.json"),
        ("EMPTY_FOLDER", "tokenizer", "has no tokenizer.json or tokenizer_config.json or tokenizer.model"),
    ],
)
def test_a_model_or_tokenizer_path_is_checked_before_any_engine_or_hub(value, what, message, tmp_path):
    from policies.llm import BackendConfigError
    from policies.llm.sources import check_source

    value = str(tmp_path) if value == "EMPTY_FOLDER" else value
    with pytest.raises(BackendConfigError, match=message):
        check_source(value, what)
    check_source("HuggingFaceTB/SmolLM2-135M-Instruct", what)  # a Hub id stays the loader's to resolve


def test_the_cli_and_the_api_refuse_a_model_folder_without_config_before_the_engine(tmp_path, capsys):
    from policies.llm import BackendConfigError

    pytest.importorskip("vllm")
    from policies.llm.vllm_backend import VLLMBackend

    with pytest.raises(BackendConfigError, match="has no config.json"):
        VLLMBackend(str(tmp_path))
    assert (
        main(
            [
                "matrix",
                "--policy",
                "llm",
                "--backend",
                "vllm",
                "--model",
                str(tmp_path),
                "--games",
                "IPD",
                "--episodes",
                "1",
                "--out",
                str(tmp_path / "res"),
            ]
        )
        == 2
    )
    assert "has no config.json" in capsys.readouterr().err
    assert (
        main(
            [
                "matrix",
                "--policy",
                "llm",
                "--backend",
                "openai",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--tokenizer",
                str(tmp_path / "tok"),
                "--games",
                "IPD",
                "--episodes",
                "1",
                "--out",
                str(tmp_path / "res"),
            ]
        )
        == 2
    )
    assert "no such tokenizer folder" in capsys.readouterr().err


def test_the_runner_names_a_missing_policy_or_env_instead_of_an_attribute_error():
    from benchmarks.errors import RunnerError
    from benchmarks.matrix.benchmark import run_episode
    from benchmarks.runner import play_lockstep
    from policies.matrix.scripted import RandomPolicy

    env = ToMRecorder(gym.make("tom/IPD-v0"))
    with pytest.raises(RunnerError, match="NoneType lacks reset, act, observe"):
        run_episode(env, None, seed=0)
    with pytest.raises(RunnerError, match="needs a Gymnasium env"):
        run_episode(None, RandomPolicy("IPD"), seed=0)
    with pytest.raises(RunnerError, match="lacks reset_batch"):
        play_lockstep([env], object(), [0])


def test_a_rerun_says_in_one_line_what_it_took_from_file(tmp_path, capsys):
    argv = [
        "matrix",
        "--games",
        "IPD,RPS",
        "--partners",
        "tit_for_tat",
        "--policy",
        "random",
        "--horizon",
        "5",
        "--out",
        str(tmp_path),
    ]
    assert main([*argv, "--episodes", "3"]) == 0
    assert "resumed" not in capsys.readouterr().err  # nothing was on file
    assert main([*argv, "--episodes", "5"]) == 0
    err = capsys.readouterr().err
    assert "resumed: 6 of 10 records were on file (2 results files); 4 computed now" in err


def test_the_rl_table_names_the_data_folder_given_not_the_bundled_sample():
    from benchmarks.common_ground.rl import TASK
    from benchmarks.rl import format_rows

    row = {
        "env_id": "tom/CommonGround-v0",
        "higher_is_better": True,
        "outcome": "accuracy",
        "policy": "ppo",
        "split": "test",
        "seeds": [0],
        "accuracy": 50.0,
        "accuracy_ci": 1.0,
        "tom_accuracy": 50.0,
        "tom_accuracy_ci": 1.0,
        "tom_source": "answers",
    }
    assert "without --data-dir the bundled sample" in format_rows([row], TASK)
    table = format_rows([row], TASK, "data/cg")
    assert "without --data-dir" not in table and "note: data from --data-dir data/cg" in table


def _batched_policy(learns: bool):
    """A batched single-agent policy written as the docs describe one: its own state for every episode
    (reset_batch), one act_batch for all of them; no predict, no observe (a fixed cycle); ``learns``: it takes
    feedback in observe but has no observe_batch."""
    from policies.base import BasePolicy

    class Cycle(BasePolicy):
        def reset(self, seed=None):
            self.reset_batch([seed])

        def act(self, observation, info):
            return self.act_batch([observation], [info], slots=[0])[0]

        def reset_batch(self, seeds):
            self.rounds = [0] * len(seeds)

        def act_batch(self, observations, infos, slots=None):
            picked = list(range(len(self.rounds))) if slots is None else list(slots)
            out = []
            for i in picked:
                out.append(self.rounds[i] % 2)
                self.rounds[i] += 1
            return out

    if learns:

        class Learner(Cycle):
            def observe(self, observation, reward, terminated, truncated, info):
                pass

        return Learner()
    return Cycle()


def test_a_batched_policy_with_its_own_batch_state_plays_in_lockstep():
    from benchmarks.runner import play, play_lockstep
    from policies.base import BatchSlotError

    envs = [ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=6)) for _ in range(3)]
    together = play_lockstep(envs, _batched_policy(False), [0, 1, 2])
    alone = [
        play(ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=6)), _batched_policy(False), s)
        for s in (0, 1, 2)
    ]
    assert [r.summary["return"] for r in together] == [r.summary["return"] for r in alone]
    with pytest.raises(BatchSlotError, match="Learner overrides reset_batch.*implement observe_batch too"):
        play_lockstep(envs, _batched_policy(True), [0, 1, 2])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["common-ground", "--policy", "random", "--qa-mode", "cot"], "--qa-mode does nothing without --policy llm"),
        (
            ["common-ground", "--policy", "random", "--temperature", "0.5"],
            "--temperature does nothing without --policy llm-release or llm-beliefs",
        ),
        (["common-ground", "--counts", "--policy", "llm"], "--policy does nothing with --counts"),
        (
            ["common-ground", "--policy", "llm-release", "--model", "m", "--max-resamples", "2"],
            "--max-resamples does nothing without --policy llm or llm-beliefs",
        ),
        (["persuasion", "--env", "live", "--no-scoring"], "--scoring does nothing with --env live"),
        # issue 44's second sweep: persuasion and negotiation took the LLM options with no LLM anywhere
        (
            ["persuasion", "--env", "qa", "--policy", "random", "--qa-mode", "cot"],
            "--qa-mode does nothing without --policy llm",
        ),
        (
            ["persuasion", "--env", "qa", "--policy", "random", "--no-scoring"],
            "--scoring does nothing without --policy llm",
        ),
        (
            ["persuasion", "--env", "qa", "--policy", "random", "--max-tokens", "5"],
            "--max-tokens does nothing without an LLM",
        ),
        (
            ["persuasion", "--env", "live", "--policy", "random", "--backend", "openai"],
            "--backend does nothing without an LLM",
        ),
        (["persuasion", "--env", "both", "--model", "m"], "--model does nothing without an LLM"),
        (["negotiation", "--policy", "social", "--backend", "openai"], "--backend does nothing without an LLM part"),
        (["negotiation", "--policy", "social", "--max-tokens", "5"], "--max-tokens does nothing without an LLM part"),
    ],
)
def test_an_option_that_would_do_nothing_is_a_named_error(argv, message, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.rglob("*.jsonl"))


#: A sweep of bad command lines (issue 44's kinds): each is a usage error or a named error, exit status 2, with a
#: message and no traceback -- never a silent run. ``{file}`` is a file, ``{empty}`` an empty folder, ``{notjson}``
#: a file that is not JSON.
BAD_LINES = [
    "matrix --games XYZ",
    "matrix --partners nope",
    "matrix --policy llm",
    "matrix --policy llm --backend openai --model m",
    "matrix --out {file}",
    "matrix --plot {file}/x",
    "persuasion --qtypes nope",
    "persuasion --data-dir {empty}/none",
    "persuasion --env live --families nope",
    "persuasion --env live --live-policy random",
    "persuasion --env live --policy nope",
    "persuasion --env qa --policy nope",
    "common-ground --data-dir {empty}",
    "common-ground --annotator Nobody",
    "common-ground --policy nope",
    "negotiation --mode nope",
    "negotiation --scenarios {empty}/none.json",
    "negotiation --scenarios {notjson}",
    "negotiation --policy nope",
    "rl --env tom/Nope-v0",
    "rl --env tom/IPD-v0 --split nope",
    "rl --env tom/IPD-v0 --env-kwargs {{bad",
    "report {empty}",
    "report {empty}/none",
    "batch {empty}/none.txt",
    "export lm-eval {empty}/x --family nope",
    # issue 44's second sweep (named errors that said the wrong thing, or a raw OS message)
    "common-ground --data-dir {file}",
    "negotiation --scenarios {empty}",
    "common-ground --export-beliefs {file}/x.jsonl",
    "common-ground --export-beliefs {empty}",
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_a_bad_command_line_is_a_named_error_never_a_silent_run(line, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notjson.json").write_text("not json")
    argv = line.format(file=tmp_path / "file", empty=tmp_path / "empty", notjson=tmp_path / "notjson.json").split()
    if argv[0] not in ("report", "batch", "export", "rl") and "--out" not in argv:
        argv += ["--out", str(tmp_path / "res")]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's usage error
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and "error" in err and "Traceback" not in err, (line, code, err[-300:])
    assert not list((tmp_path / "res").rglob("*.jsonl")) if (tmp_path / "res").exists() else True


#: the second sweep's messages that must say what was wrong (a file for a folder, a folder for a file)
@pytest.mark.parametrize(
    "line, message",
    [
        ("common-ground --data-dir {file}", "is a file, not a folder"),
        ("negotiation --scenarios {empty}", "is a folder, not a scenario file"),
        ("common-ground --export-beliefs {file}/x.jsonl", "which is a file; give a path under a folder"),
        ("common-ground --export-beliefs {empty}", "is a folder; give a file path"),
    ],
)
def test_a_path_of_the_wrong_kind_is_named_for_what_it_is(line, message, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    argv = line.format(file=tmp_path / "file", empty=tmp_path / "empty").split()
    try:
        code = main([*argv, "--out", str(tmp_path / "res")])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2 and message in capsys.readouterr().err


def _api_cases(tmp_path):
    from benchmarks.runner import play, play_lockstep
    from policies.llm import OpenAIBackend
    from policies.matrix.scripted import RandomPolicy
    from wrappers import JSONLEpisodeLog, TextObservation

    (tmp_path / "file").write_text("x")

    def ipd():
        return ToMRecorder(gym.make("tom/IPD-v0", partners="tit_for_tat", horizon=3))

    return {
        "an empty served model name": lambda: OpenAIBackend("http://127.0.0.1:9/v1", " "),
        "a seed that is text (play)": lambda: play(ipd(), RandomPolicy("IPD"), "x"),
        "a seed that is text (lockstep)": lambda: play_lockstep([ipd()], RandomPolicy("IPD"), ["a"]),
        "an episode log inside a file": lambda: JSONLEpisodeLog(gym.make("tom/IPD-v0"), tmp_path / "file" / "x.jsonl"),
        "a text option the env does not have": lambda: TextObservation(gym.make("tom/IPD-v0"), nope=1),
    }


@pytest.mark.parametrize(
    "case, error, message",
    [
        ("an empty served model name", "InvalidRequest", "model must be the served model's name"),
        ("a seed that is text (play)", "RunnerError", "an episode's seed is a whole number"),
        ("a seed that is text (lockstep)", "RunnerError", "an episode's seed is a whole number"),
        ("an episode log inside a file", "TomEnvsError", "is a file, not a folder"),
        ("a text option the env does not have", "TomEnvsError", "text form does not take these options (nope)"),
    ],
)
def test_the_api_names_what_the_second_sweep_found(case, error, message, tmp_path):
    """Once a raw TypeError / ValueError / FileExistsError, or (the served model name) accepted silently."""
    with pytest.raises(TomEnvsError) as caught:
        _api_cases(tmp_path)[case]()
    assert type(caught.value).__name__ == error and message in str(caught.value)
