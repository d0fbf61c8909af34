"""One option vocabulary (issue 30): the docs say every command reads the same options. This walks every command
``tom-envs`` builds (the shared commands, every family's commands and benchmarks, plugins included) and checks it:

* every command that makes results takes ``--format``, ``--seed``, ``--out`` and ``--plot``, the LLM group and
  the executor group -- or, where one of them does not apply, names it and says why (a
  :class:`benchmarks.cli.Refused` option: ``error: --plot does not apply to ...``), never argparse's bare
  "unrecognized arguments";
* every command takes ``--format`` (listed gaps aside, each with its reason);
* a command with an LLM group (``--backend``) has every LLM option, or refuses it with a reason;
* every refusal is a usage error (exit status 2) that prints its reason.
"""

from __future__ import annotations

import argparse

import pytest

from benchmarks.__main__ import build_parser, main
from benchmarks.cli import EXECUTOR_FLAGS, Refused
from benchmarks.cli_llm import LLM_FLAGS, LLM_OPTIONS

#: The shared vocabulary of a command that makes results.
SHARED = ("--format", "--seed", "--out", "--plot")
#: Commands without --format, and why (none now).
FORMAT_GAPS: dict[str, str] = {}


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every leaf command's parser by its command line (``"data download persuasion"``)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and words:
            found[" ".join(words)] = parser
        for sub in subs:
            for name, child in sub.choices.items():
                walk(child, (*words, name))

    walk(build_parser(), ())
    return found


def result_commands() -> set[str]:
    """The commands that make results: every built-in family's benchmark and own commands, and ``rl`` (a plugin's
    commands are its author's to check: an installed plugin does not change what this test asks)."""
    from tom_envs.family import families, is_builtin, load_object

    build_parser()  # declares the benchmarks
    builtin = [fam for fam in families() if is_builtin(fam.name)]
    names = {fam.command for fam in builtin if fam.benchmark} | {"rl"}
    names |= {load_object(target).name for fam in builtin for target in fam.commands}
    return names


def option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return parser._option_string_actions.get(flag)


def test_the_walk_finds_every_kind_of_command():
    found = commands()
    assert {
        "matrix",
        "common-ground",
        "persuasion",
        "negotiation",
        "demo",
        "perf",
        "rl",
        "report",
        "registry",
        "data list",
        "export lm-eval",
    } <= set(found)
    assert {"matrix", "demo", "perf", "rl", "negotiation"} <= result_commands() <= set(found)


@pytest.mark.parametrize("name", sorted(result_commands()))
def test_every_command_that_makes_results_reads_the_shared_options_or_says_why_not(name):
    parser = commands()[name]
    for flag in (*SHARED, *LLM_FLAGS, *EXECUTOR_FLAGS):
        action = option(parser, flag)
        assert action is not None, f"`tom-envs {name}` neither takes {flag} nor says why it does not apply"
        if isinstance(action, Refused):
            assert len(action.why) > 20, f"`tom-envs {name}` refuses {flag} without a reason"


def test_every_command_takes_format():
    missing = [name for name, parser in commands().items() if option(parser, "--format") is None]
    assert sorted(missing) == sorted(FORMAT_GAPS)
    for name, parser in commands().items():
        action = option(parser, "--format")
        if action is not None and not isinstance(action, Refused):
            assert "json" in action.choices, f"`tom-envs {name} --format` has no json"


def test_a_command_with_an_llm_group_has_every_llm_option_or_says_why_not():
    checked = 0
    for name, parser in commands().items():
        if option(parser, "--backend") is None or isinstance(option(parser, "--backend"), Refused):
            continue
        checked += 1
        for dest in LLM_OPTIONS:
            flag = "--" + dest.replace("_", "-")
            if name == "perf" and dest in ("fallback", "max_resamples", "lockstep"):
                assert isinstance(option(parser, flag), Refused)
            assert option(parser, flag) is not None, f"`tom-envs {name}` has an LLM group without {flag}"
    assert checked >= 5  # matrix, common-ground, persuasion, negotiation, perf


def refusals() -> list[tuple[str, str, str]]:
    return [
        (name, flag, action.why)
        for name, parser in sorted(commands().items())
        for flag, action in sorted(parser._option_string_actions.items())
        if isinstance(action, Refused)
    ]


@pytest.mark.parametrize("name,flag,why", refusals())
def test_every_refused_option_is_a_usage_error_that_says_why(name, flag, why, capsys):
    argv = [*name.split(), flag, "x"]
    if name == "perf":
        argv.insert(1, "matrix")
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"{flag} does not apply to `tom-envs {name}`" in err and why in err.replace("\n", " ").replace("  ", " ")


def test_the_server_options_reach_perf_llms_backend():
    from benchmarks.cli_backends import backend_spec

    args = commands()["perf"].parse_args(
        [
            "llm",
            "--backend",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--timeout",
            "3",
            "--max-retries",
            "2",
            "--retry-budget",
            "9",
            "--seed",
            "4",
        ]
    )
    spec = backend_spec(args, args.seed)
    assert spec[3] == 4 and spec[-1] == {"timeout": 3.0, "max_retries": 2, "retry_budget_s": 9.0}
