"""``Benchmark.llm_policies`` (benchmarks/family.py): a declared benchmark's LLM policy gets the LLM options,
its cells carry the run's identity (results key) and the options that build its backend, and the
generated command plays it (here against the loopback scripted server). Declarations without
``llm_policies`` are unchanged."""

from __future__ import annotations

import json

import pytest

from benchmarks import family
from benchmarks.__main__ import main
from benchmarks.errors import RunnerError
from policies.base import BasePolicy
from policies.llm.caller import Ask, Caller
from policies.llm.errors import ReplyError

ENV = "tom/RPS-v0"


def parse_move(text: str) -> int:
    if text.strip() not in ("0", "1", "2"):
        raise ReplyError("answer 0, 1 or 2")
    return int(text.strip())


class AskedMove(BasePolicy):
    """Plays the move a model names (one ask per step)."""

    def __init__(self, backend) -> None:
        super().__init__()
        self.caller = Caller(backend, max_resamples=2, max_tokens=4)

    def act(self, observation, info) -> int:
        return self.caller.ask("move", [Ask("Rock (0), paper (1) or scissors (2)?", parse_move)])[0].value


class Scissors(BasePolicy):
    def act(self, observation, info) -> int:
        return 2


@pytest.fixture
def declared():
    family.register(
        family.Benchmark(
            name="llm-toy",
            help="a declared benchmark with an LLM policy",
            family="llm_toy",
            env_ids=(ENV,),
            policies={"scissors": lambda cell: Scissors(), "llm": lambda cell: AskedMove(cell.backend())},
            llm_policies=("llm",),
            metrics=("return",),
            episodes=2,
        )
    )
    yield
    family.unregister("llm-toy")
    family.close_backends()


def test_an_llm_policy_of_a_declaration_is_played_on_the_llm_options(declared, tmp_path, capsys):
    from tests.llm.scripted_server import ScriptedServer

    server = ScriptedServer(lambda prompt, seed: "2")
    try:
        argv = [
            "llm-toy",
            "--policy",
            "scissors,llm",
            "--out",
            str(tmp_path),
            "--format",
            "json",
            "--backend",
            "openai",
            "--base-url",
            server.url,
            "--model",
            "scripted",
            "--max-resamples",
            "1",
        ]
        assert main(argv) == 0
    finally:
        server.close()
    scissors, llm = json.loads(capsys.readouterr().out)
    assert (scissors["policy"], llm["policy"], llm["episodes"]) == ("scissors", "llm", 2)
    assert llm["return"] == scissors["return"] and len(server.requests) == 2 * 100  # the model always says 2
    (path,) = (tmp_path / "llm_toy").glob("*_llm_*.jsonl")
    cell = json.loads(path.read_text().splitlines()[0])["cell"]
    assert cell["policy_params"] == {
        "backend": "openai",
        "model": "scripted",
        "base_url": server.url,
        "model_identity": None,
        "max_resamples": 1,
        "fallback": "raise",
    }
    assert "llm" not in cell and "tokenizer" not in json.dumps(cell)  # how to build it is not its identity
    plain = json.loads(next((tmp_path / "llm_toy").glob("*_scissors_*.jsonl")).read_text().splitlines()[0])["cell"]
    assert plain["policy_params"] == {}


def test_the_llm_options_and_their_errors(declared, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["llm-toy", "--help"])
    text = capsys.readouterr().out
    assert "LLM policies (--policy llm)" in text and "--base-url" in text and text.count("--lockstep") == 2
    assert main(["llm-toy", "--policy", "llm", "--out", str(tmp_path)]) == 2
    assert "policy 'llm' needs an LLM backend: pass --model" in capsys.readouterr().err
    cell = family.EnvCell("llm_toy", ENV, "scissors")
    with pytest.raises(RunnerError, match="needs an LLM backend"):
        cell.backend()
    with pytest.raises(RunnerError, match=r"llm_policies \['gpt'\] are not among its policies"):
        family.register(
            family.Benchmark(name="bad", help="", policies={"scissors": lambda cell: Scissors()}, llm_policies=("gpt",))
        )


def test_a_declaration_without_llm_policies_has_no_llm_options(capsys):
    family.register(
        family.Benchmark(
            name="plain-toy",
            help="",
            family="plain_toy",
            env_ids=(ENV,),
            policies={"scissors": lambda cell: Scissors()},
        )
    )
    try:
        with pytest.raises(SystemExit):
            main(["plain-toy", "--help"])
    finally:
        family.unregister("plain-toy")
    assert "--model" not in capsys.readouterr().out
