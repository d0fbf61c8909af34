"""What a benchmark declares beyond one grid (``Part``, ``Job``, ``layouts``, ``check``) is read by the one
generated command (:mod:`benchmarks.family_command`), for a plugin as for the built-in families, which
declare no command body of their own."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchmarks import family
from benchmarks.__main__ import build_parser, main
from benchmarks.errors import RunnerError
from policies.base import BasePolicy
from policies.llm.base import ChatRequest
from policies.llm.errors import BackendError
from tests.llm.scripted_server import ScriptedServer

ENV = "tom/RPS-v0"
BUILT_IN = ("matrix", "persuasion", "negotiation", "common-ground")


class Rock(BasePolicy):
    def act(self, observation, info) -> int:
        return 0


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code)


@pytest.fixture
def declare(monkeypatch, tmp_path):
    """Register a benchmark for the test (unregistered after it); the commands run in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    names = []

    def _declare(**fields):
        fields = {
            "name": "parts-toy",
            "help": "a benchmark made of parts",
            "family": "parts_toy",
            "env_ids": (ENV,),
            "policies": {"rock": lambda cell: Rock()},
            "episodes": 2,
            **fields,
        }
        names.append(fields["name"])
        return family.register(family.Benchmark(**fields))

    yield _declare
    for name in names:
        family.unregister(name)


def test_a_benchmark_has_no_command_body_of_its_own():
    assert "run" not in {f.name for f in dataclasses.fields(family.Benchmark)}
    with pytest.raises(TypeError):
        family.Benchmark(name="x", help="", policies={"rock": lambda cell: Rock()}, run=lambda args: 0)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_family_is_declared_with_the_fields_a_plugin_has(name):
    import importlib

    importlib.import_module(f"benchmarks.{name.replace('-', '_')}.benchmark")
    bench = family.get(name)
    assert bench.parts, f"{name} declares its command's parts"
    assert all(isinstance(part, family.Part) for part in bench.parts)


def test_matrix_layouts_are_its_table_choices():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["matrix"]
    table = sub._option_string_actions["--table"]
    assert list(table.choices) == list(family.get("matrix").layouts) == ["table4", "table2", "table3", "table10"]
    assert table.default == "table4"


def test_parts_play_when_they_apply_and_their_rows_join(declare, capsys):
    def custom(args, context):
        return [{"part": "custom", "seed": args.seed}], {}

    declare(
        parts=(
            family.Part("grid"),
            family.Part("custom", evaluate=custom),
            family.Part("never", applies=lambda args: False, evaluate=lambda args, context: 1 / 0),
        )
    )
    assert main(["parts-toy", "--format", "json", "--seed", "3"]) == 0
    grid, extra = json.loads(capsys.readouterr().out)
    assert (grid["env_id"], grid["policy"], grid["episodes"]) == (ENV, "rock", 2)
    assert extra == {"part": "custom", "seed": 3}


def test_layouts_add_a_table_option_and_one_is_printed(declare, capsys):
    declare(
        layouts={
            "short": lambda rows, records, args: f"{len(rows)} row(s)",
            "keys": lambda rows, records, args: f"{rows[0]['policy']}: {len(next(iter(records.values())))} episodes",
        },
        layout_help="short or keys",
    )
    assert main(["parts-toy"]) == 0
    assert capsys.readouterr().out.strip() == "1 row(s)"
    assert main(["parts-toy", "--table", "keys"]) == 0
    assert capsys.readouterr().out.strip() == "rock: 2 episodes"
    assert _exit(["parts-toy", "--table", "wide"]) == 2
    assert "invalid choice: 'wide'" in capsys.readouterr().err


def test_one_layout_adds_no_table_option(declare, capsys):
    declare(layouts={"only": lambda rows, records, args: "the only layout"})
    assert _exit(["parts-toy", "--table", "only"]) == 2
    assert main(["parts-toy"]) == 0
    assert capsys.readouterr().out.strip() == "the only layout"


def test_a_job_runs_instead_of_the_parts_and_two_jobs_are_a_named_error(declare, capsys):
    def arguments(parser):
        parser.add_argument("--count", action="store_true")
        parser.add_argument("--dump", default=None)

    def count(args):
        print("counted")
        return 0

    def dump(args):
        print(f"dumped to {args.dump}")
        return 0

    declare(
        arguments=arguments,
        jobs=(family.Job("--count", count), family.Job("--dump", dump)),
        parts=(family.Part("boom", evaluate=lambda args, context: 1 / 0),),
    )
    assert main(["parts-toy", "--count"]) == 0
    assert capsys.readouterr().out.strip() == "counted"
    assert main(["parts-toy", "--dump", "here.txt"]) == 0
    assert capsys.readouterr().out.strip() == "dumped to here.txt"
    assert main(["parts-toy", "--count", "--dump", "x"]) == 2
    assert "--count and --dump are different jobs of this command" in capsys.readouterr().err


def test_check_runs_before_any_part(declare, capsys):
    def check(args):
        if args.seed == 7:
            raise RunnerError("--seed 7 is not allowed here: pick another seed")

    declare(check=check, parts=(family.Part("boom", evaluate=lambda args, context: 1 / 0),))
    assert main(["parts-toy", "--seed", "7"]) == 2
    assert "--seed 7 is not allowed here" in capsys.readouterr().err


def test_the_parts_share_one_llm_backend_closed_when_the_command_ends(declare, capsys):
    seen = []

    def ask(args, context):
        backend = context.backend()
        seen.append(backend)
        (reply,) = backend.generate([ChatRequest([{"role": "user", "content": "move?"}], 4, 0.0, 0)])
        return [{"reply": reply.text}], {}

    declare(
        policies={"rock": lambda cell: Rock(), "llm": lambda cell: Rock()},
        llm_policies=("llm",),
        parts=(family.Part("first", evaluate=ask), family.Part("second", evaluate=ask)),
    )
    server = ScriptedServer(lambda prompt, seed: "2")
    try:
        assert (
            main(
                [
                    "parts-toy",
                    "--policy",
                    "llm",
                    "--backend",
                    "openai",
                    "--base-url",
                    server.url,
                    "--model",
                    "scripted",
                    "--format",
                    "json",
                ]
            )
            == 0
        )
    finally:
        server.close()
    assert json.loads(capsys.readouterr().out) == [{"reply": "2"}, {"reply": "2"}]
    assert len(seen) == 2 and seen[0] is seen[1] and len(server.requests) == 2
    with pytest.raises(BackendError, match="was closed"):
        seen[0].generate([ChatRequest([{"role": "user", "content": "again?"}], 4, 0.0, 0)])


def test_a_declaration_with_neither_policies_nor_an_evaluating_part_is_a_named_error():
    with pytest.raises(RunnerError, match="declares no policies"):
        family.register(family.Benchmark(name="empty", help="", parts=(family.Part("grid"),)))
