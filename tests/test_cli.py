"""``tom-envs``: one vocabulary, usage errors instead of tracebacks, help on every option."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from benchmarks import family
from benchmarks.__main__ import build_parser, main
from benchmarks.cli import Refused

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "a_file.txt"
    path.write_text("not a folder\n")
    return str(path)


BAD = [
    ["matrix", "--horizon", "0"],
    ["matrix", "--seed", "-1"],
    ["matrix", "--episodes", "0"],
    ["matrix", "--episodes", "many"],
    ["matrix", "--out", "{file}"],
    ["matrix", "--out", "{file}/inside"],
    ["matrix", "--plot", "{file}"],
    ["matrix", "--games", ""],
    ["matrix", "--games", " , "],
    ["matrix", "--games", "RPS,IPD,RPS"],
    ["matrix", "--partners", "tit_for_tat,tit_for_tat"],
    ["matrix", "--policy", "tabular,tabular"],
    ["matrix", "--lockstep", "0"],
    ["matrix", "--ray-chunk", "0"],
    ["matrix", "--max-resamples", "-1"],
    ["matrix", "--scoring-path", "fastest"],
    ["matrix", "--engine-arg", "no-equals-sign"],
    ["common-ground", "--engine-arg", "=1"],
    ["rl", "--env", "tom/IPD-v0", "--n-envs", "0"],
    ["rl", "--env", "tom/IPD-v0", "--episodes", "0"],
    ["rl", "--env", "tom/IPD-v0", "--steps", "0"],
    ["rl", "--env", "tom/IPD-v0", "--seeds", "0"],
    ["rl", "--env", "tom/IPD-v0", "--algo", "sac"],
    ["rl", "--env", "tom/IPD-v0", "--out", "{file}"],
    ["perf", "matrix", "--seconds", "0"],
    ["perf", "matrix", "--seconds", "nan"],
    ["perf", "rl", "--steps", "0"],
    ["perf", "llm", "--episodes", "0"],
    ["demo", "--episodes", "0"],
    ["demo", "--out", "{file}"],
    ["registry", "--update-readme", "/nonexistent/README.md"],
    ["registry", "--update-readme", "{dir}"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_flag_values_are_usage_errors_without_traceback(argv, a_file, tmp_path, capsys):
    argv = [a.replace("{file}", a_file).replace("{dir}", str(tmp_path)) for a in argv]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert err.startswith("usage: tom-envs")


def test_a_bad_flag_through_the_module_entry_point_prints_no_traceback(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "matrix", "--horizon", "0", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "argument --horizon: must be at least 1, got 0" in out.stderr


def test_bad_combinations_found_while_running_are_named_errors(tmp_path, capsys):
    assert main(["matrix", "--policy", "tabular,llm", "--out", str(tmp_path)]) == 2
    assert "--policy llm runs alone" in capsys.readouterr().err
    assert main(["matrix", "--policy", "llm", "--out", str(tmp_path)]) == 2  # no --model
    assert "needs --model" in capsys.readouterr().err
    assert main(["matrix", "--games", "Chess", "--episodes", "1", "--out", str(tmp_path)]) == 2
    assert "unknown game 'Chess'" in capsys.readouterr().err
    assert (
        main(
            [
                "matrix",
                "--policy",
                "llm",
                "--backend",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--engine-arg",
                "enforce_eager=true",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "--engine-arg configures the in-process vllm engine" in capsys.readouterr().err


def test_version_and_program_name(capsys):
    from tom_envs import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.startswith(f"tom-envs {__version__}")
    assert build_parser().format_usage().startswith("usage: tom-envs")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tom-envs"] == "benchmarks.__main__:main"


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


COMMANDS = [path for path, _ in _commands(build_parser())]


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) or "tom-envs" for p in COMMANDS])
def test_every_option_has_help_and_its_default_is_shown(path):
    parser = dict(_commands(build_parser()))[path]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction, Refused)):
            continue  # (a refused option is hidden: giving it is an error that says why, test_cli_vocabulary.py)
        assert action.help, f"{' '.join(path)} {action.option_strings or action.dest} has no help"
        if action.required:
            continue  # a positional argument or a required option has no default
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            assert "(default: " not in formatter._get_help_string(action), (path, action.dest)
            continue  # a flag's default is its absence: "--no-prompts (default: True)" read as on by default
        assert "default" in formatter._get_help_string(action).lower(), (path, action.dest)


def test_the_shared_options_have_the_same_names_everywhere():
    parsers = dict(_commands(build_parser()))
    from tom_envs.family import families

    assert {f.command for f in families()} <= set(family.REGISTRY)  # every declared family has a benchmark
    for name in family.REGISTRY:
        flags = {s for a in parsers[(name,)]._actions for s in a.option_strings}
        assert {"--episodes", "--seed", "--out", "--format", "--policy"} <= flags, name
    llm_flags = {
        "--backend",
        "--model",
        "--base-url",
        "--tokenizer",
        "--max-model-len",
        "--fallback",
        "--max-resamples",
        "--lockstep",
        "--scoring-path",
        "--engine-arg",
    }
    assert llm_flags <= {s for a in parsers[("matrix",)]._actions for s in a.option_strings}
    for name in ("common-ground", "persuasion", "negotiation"):  # each family's subset, with the engine options
        flags = {s for a in parsers[(name,)]._actions for s in a.option_strings}
        assert {"--backend", "--model", "--base-url", "--engine-arg", "--max-resamples", "--plot"} <= flags, name
        # the scoring options only where something is scored by log-probability (the QA answerers); elsewhere
        # giving them is an error that says why (benchmarks.cli.Refused)
        scoring = [
            a
            for flag, a in parsers[(name,)]._option_string_actions.items()
            if flag in ("--scoring-path", "--tokenizer")
        ]
        assert len(scoring) == 2 and {isinstance(a, Refused) for a in scoring} == {name == "negotiation"}, name


def test_a_file_system_failure_is_a_message_not_a_traceback(capsys):
    if not Path("/proc/self").exists():
        pytest.skip("needs /proc (a folder nobody can create entries in)")
    assert (
        main(["matrix", "--games", "IPD", "--episodes", "1", "--horizon", "3", "--out", "/proc/tom-envs-results"]) == 1
    )
    err = capsys.readouterr().err
    assert err.startswith("error:") and "/proc/tom-envs-results" in err and "Traceback" not in err


def test_rl_reads_policy_as_the_algorithm():
    args = build_parser().parse_args(["rl", "--env", "tom/IPD-v0", "--policy", "a2c"])
    assert args.algo == "a2c"


def test_progress_bars_show_on_a_terminal_only(tmp_path, capsys):
    import fcntl
    import os
    import struct
    import termios

    from benchmarks.runner import progress_bar

    bar = progress_bar(3, "quiet")  # stderr is not a terminal here
    bar.update(3)
    bar.close()
    assert capsys.readouterr().err == ""
    args = [
        sys.executable,
        "-m",
        "benchmarks",
        "matrix",
        "--games",
        "IPD",
        "--partners",
        "tit_for_tat",
        "--episodes",
        "40",
        "--horizon",
        "50",
    ]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a terminal has a size
    try:
        proc = subprocess.run(
            [*args, "--out", str(tmp_path / "tty")],
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0 and "/40 [" in seen.decode(errors="replace")  # tqdm drew on the terminal
    piped = subprocess.run(
        [*args, "--out", str(tmp_path / "pipe")], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert piped.returncode == 0 and piped.stderr == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["negotiation", "--episodes", "2", "--runs", "3"],
        ["rl", "--env", "tom/IPD-v0", "--algo", "ppo", "--policy", "a2c"],
    ],
)
def test_two_names_of_one_option_on_one_command_line_are_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and "two names of one option; give it once" in capsys.readouterr().err


def test_an_alias_alone_or_an_option_repeated_is_fine():
    args = build_parser().parse_args(["negotiation", "--runs", "3"])
    assert args.episodes == 3
    assert build_parser().parse_args(["negotiation", "--runs", "3", "--runs", "4"]).episodes == 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["matrix", "--episodes", "100000000000"], "must be at most 1,000,000"),
        (["negotiation", "--lockstep", "10000000"], "must be at most 100,000"),
    ],
)
def test_size_options_are_bounded_before_any_work(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_a_horizon_past_the_bound_is_a_named_error_not_a_memory_error(tmp_path, capsys):
    assert (
        main(["matrix", "--horizon", "1000000000", "--episodes", "1", "--policy", "random", "--out", str(tmp_path)])
        == 2
    )
    assert "horizon must be a whole number in 1..100,000" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.jsonl"))


def test_rl_checks_its_split_before_training(tmp_path, capsys):
    assert main(["rl", "--env", "tom/IPD-v0", "--split", "nosuch", "--steps", "200000", "--out", str(tmp_path)]) == 2
    assert "--split 'nosuch' is not a split" in capsys.readouterr().err and not (tmp_path / "rl").exists()


@pytest.mark.parametrize(
    "argv, named",
    [
        (
            ["matrix", "--policy", "tabular", "--strategies", "qa", "--games", "IPD"],
            "--strategies does nothing without --policy llm",
        ),
        (["matrix", "--policy", "random", "--model", "m", "--fallback", "random"], "--model, --fallback do nothing"),
        (["persuasion", "--env", "live", "--qtypes", "desire_ee"], "--qtypes does nothing with --env live"),
        (["persuasion", "--env", "qa", "--hor", "3"], "--horizon does nothing with --env qa"),  # an abbreviation too
        (["common-ground", "--counts", "--export-beliefs", "x"], "--counts and --export-beliefs are different jobs"),
        (["persuasion", "--repetitions", "2"], "--episodes and --repetitions both set the passes"),
        (
            ["matrix", "--policy", "llm", "--backend", "openai", "--base-url", "notaurl", "--model", "m"],
            "--base-url 'notaurl' is not an http(s) URL",
        ),
        (["matrix", "--policy", "llm", "--backend", "vllm", "--model", "/no/such/model"], "no such model folder"),
    ],
)
def test_an_option_that_would_change_nothing_is_a_named_error(argv, named, tmp_path, capsys):
    assert main([*argv, "--episodes", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())  # before any work


def test_options_that_apply_are_still_accepted(tmp_path, capsys):
    assert (
        main(
            [
                "persuasion",
                "--env",
                "both",
                "--qtypes",
                "desire_ee",
                "--horizon",
                "2",
                "--episodes",
                "1",
                "--repetitions",
                "1",
                "--families",
                "health",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )


def test_plot_writes_the_family_figures_on_every_benchmark_command(tmp_path, capsys):
    """--plot DIR is on every benchmark command; the QA families draw their report figures there."""
    out, figs = tmp_path / "res", tmp_path / "figs"
    assert main(["common-ground", "--policy", "random", "--out", str(out), "--plot", str(figs)]) == 0
    assert (
        main(
            [
                "persuasion",
                "--env",
                "both",
                "--policy",
                "random",
                "--repetitions",
                "1",
                "--episodes",
                "2",
                "--families",
                "health",
                "--horizon",
                "2",
                "--out",
                str(out),
                "--plot",
                str(figs),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    written = sorted(p.relative_to(figs).as_posix() for p in figs.rglob("*.png"))
    assert written == ["common_ground/stages.png", "persuasion/live_plane.png", "persuasion/stages.png"]
    assert all(f"wrote {figs / w}" in printed for w in written)
    parser = build_parser()
    for name in ("matrix", "common-ground", "persuasion", "negotiation"):
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        assert "--plot" in sub.choices[name]._option_string_actions, name


def test_tokenizer_reaches_the_qa_answerers_backend_settings():
    """QA scoring through an OpenAI-compatible server needs the chat template: --tokenizer is on both QA commands."""
    from benchmarks.cli_llm import llm_settings

    parser = build_parser()
    for name in ("common-ground", "persuasion"):
        args = parser.parse_args(
            [
                name,
                "--policy",
                "llm",
                "--backend",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--tokenizer",
                "tok",
                "--scoring",
            ]
        )
        assert llm_settings(args)["tokenizer"] == "tok" and args.scoring is True
