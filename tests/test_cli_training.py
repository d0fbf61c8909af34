"""The options of the commands that train learners (``tom-envs rl``, ``selfplay``, ``crossplay``) become their run
configuration field by field (:func:`benchmarks.cli_training.run_config`), and they share ``--out`` / ``--format``."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.__main__ import build_parser
from benchmarks.cli_training import run_config
from benchmarks.crossplay import CrossplayRun
from benchmarks.rl import RLRun
from benchmarks.selfplay import SelfplayRun


def _args(line: list[str]):
    return build_parser().parse_args(line)


def test_every_option_of_an_rl_command_line_reaches_its_run():
    args = _args(
        "rl --env tom/IPD-v0 --algo dqn --steps 300 --seeds 2 --seed 4 --split train --episodes 3 --n-envs 2 "
        "--curve-points 0 --out somewhere".split()
        + ["--env-kwargs", '{"horizon": 5}']
    )
    assert run_config(RLRun, args, env_id=args.env) == RLRun(
        "tom/IPD-v0", "dqn", 300, 2, 4, "train", None, 3, 2, None, {"horizon": 5}, 0
    )


def test_every_option_of_a_selfplay_command_line_reaches_its_run():
    args = _args(
        "selfplay --env tom/IPD-Parallel-v0 --algo recurrent_ppo --mode population --rounds 2 --steps 64 --seeds 3 "
        "--seed 1 --episodes 4 --probe-episodes 5".split()
    )
    assert run_config(SelfplayRun, args, env_id=args.env) == SelfplayRun(
        "tom/IPD-Parallel-v0", "recurrent_ppo", "population", 2, 64, 3, 1, 4, 5
    )


def test_every_option_of_a_crossplay_command_line_reaches_its_run():
    args = _args("crossplay --env tom/IPD-Parallel-v0 --episodes 3 --seed 2 --horizon 7 --learner-steps 0".split())
    config = run_config(CrossplayRun, args, env_ids=("tom/IPD-Parallel-v0",))
    assert config == CrossplayRun(("tom/IPD-Parallel-v0",), 3, 2, 7, 0, 8)


@pytest.mark.parametrize("command", ["rl --env tom/IPD-v0", "selfplay --env tom/IPD-Parallel-v0"])
def test_the_training_commands_keep_their_models_under_out_and_print_json_on_request(command):
    args = _args([*command.split(), "--out", "elsewhere", "--format", "json"])
    assert (args.out, args.format) == ("elsewhere", "json")
    assert _args(command.split()).out == "results"


def test_a_field_no_option_spells_fails_naming_it():
    @dataclasses.dataclass(frozen=True)
    class Unspelled:
        env_id: str
        nowhere: int = 0

    args = _args("rl --env tom/IPD-v0".split())
    with pytest.raises(AttributeError, match="nowhere"):
        run_config(Unspelled, args, env_id=args.env)
