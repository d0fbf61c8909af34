"""The suite as Inspect AI tasks (benchmarks/harnesses/inspect_*.py; docs/harnesses.md, issue 31).

Each family's task runs end to end through ``inspect_ai.eval`` with ``mockllm/model`` replying by a
rule, and its scores are compared with the family's own command run on the same replies (the same
rule behind the loopback OpenAI-compatible server, tests/llm/scripted_server.py): equal numbers.
One task also runs against that server through Inspect's ``openai-api`` provider, and once through
the ``inspect eval tom_envs/<task>`` command line (the entry point). Every task runs again with a non-default
value of every shared parameter it takes (on replies garbled one in three, so re-asks and fallbacks happen),
compared with the command on the same options, call by call; the shared parameters a task refuses are named
errors; and the docs' offline ``mockllm`` example runs with no hub and no download.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from tests.llm.scripted_server import ScriptedServer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: The suite commands more than one comparison runs (argv after ``tom-envs``; each test adds its own options).
AUTHORS_QA = (
    "persuasion --env qa --policy llm --protocol authors --no-scoring --repetitions 1 --qtypes desire_er,belief_ee"
)
#: the suite's command for the IPD rows the harness and training tests compare against (two episodes of 4 rounds)
IPD_QA_COMMAND = (
    *("matrix", "--policy", "llm", "--strategies", "qa", "--games", "IPD", "--partners", "tit_for_tat"),
    *("--episodes", "2", "--horizon", "4"),
)
MEDIUM_NEGOTIATION = "negotiation --mediator llm-generic --mode medium --scenarios hopkins_hmo --episodes 1"
#: Inspect's own retry settings trip a tenacity deprecation we cannot fix from here.
#: Inspect's eval loop leaves anyio memory streams to the garbage collector (a ResourceWarning at exit).
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]


def _h(content: str) -> int:
    return zlib.crc32(content.encode())


def matrix_rule(content: str, seed) -> str:
    return f"Answer: {'JF'[_h(content) % 2]}"


def qa_letters_rule(content: str, seed) -> str:
    return ("A", "B.", "C", "B")[_h(content) % 4]


def yes_no_rule(content: str, seed) -> str:
    return ("Yes.", "No", "Maybe", "No.")[_h(content) % 4]


def live_rule(content: str, seed) -> str:
    if content.startswith("Which persuasion principle"):
        return ("authority", "none", "Scarcity.")[_h(content) % 3]
    return (
        "Desire: no\nBelief: trusting\nIntention: doubt\nLine: Experts recommend it, the evidence is solid.",
        "Desire: considering\nBelief: wary\nIntention: cost\nLine: Only today, and it is cheap.",
    )[_h(content) % 2]


def negotiation_rule(content: str, seed) -> str:
    from tests.llm.test_negotiation_llm import scripted_reply

    return scripted_reply(content, seed)


def mock(rule) -> object:
    """``mockllm/model`` answering the last message by ``rule(content, seed)``."""

    def output(messages, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm", rule(messages[-1].text, config.seed))
        out.usage = ModelUsage(input_tokens=5, output_tokens=5, total_tokens=10)  # no tokenizer download
        return out

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


def inspect_log(task_name: str, model, tmp_path: Path, model_roles=None, **params):
    from benchmarks.harnesses.inspect_tasks import TASKS

    logs = inspect_eval(
        TASKS[task_name](**params), model=model, model_roles=model_roles, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert logs[0].status == "success", logs[0].error
    return logs[0]


def inspect_scores(task_name: str, model, tmp_path: Path, model_roles=None, **params) -> dict[str, float]:
    log = inspect_log(task_name, model, tmp_path, model_roles, **params)
    return {k: v.value for s in log.results.scores for k, v in s.metrics.items()}


def suite_rows(rule, tmp_path: Path, *argv: str, requests: list | None = None) -> list[dict]:
    """The family's own command on ``rule``'s replies from the loopback server; its JSON rows (the
    request bodies the server got are appended to ``requests``)."""
    from benchmarks.__main__ import main

    server = ScriptedServer(rule)
    if requests is not None:
        server.requests = requests
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            rc = main(
                [
                    *argv,
                    "--backend",
                    "openai",
                    "--base-url",
                    server.url,
                    "--model",
                    "scripted",
                    "--format",
                    "json",
                    "--out",
                    str(tmp_path / "out"),
                ]
            )
    finally:
        server.close()
    assert rc == 0
    return json.loads(buf.getvalue())


def test_importing_the_suite_does_not_import_inspect():
    code = (
        "import sys, benchmarks, benchmarks.harnesses, benchmarks.__main__, tom_envs; "
        "assert 'inspect_ai' not in sys.modules, 'inspect_ai imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_every_family_has_a_task():
    from benchmarks.harnesses.inspect_spec import declared_tasks
    from tom_envs.family import families

    tasks = declared_tasks()
    envs = {t.env_id for t in tasks}
    assert {"tom/IPD-v0", "tom/PersuasiveToM-v1", "tom/Persuasion-v2", "tom/CommonToM-v2", "tom/Negotiation-v1"} <= envs
    import tom_envs

    covered = {tom_envs.REGISTRY[e].family for e in envs}
    assert covered >= {f.name for f in families() if f.benchmark and f.benchmark.startswith("benchmarks.")}


def test_an_unknown_task_parameter_is_a_named_error():
    from benchmarks.harnesses.inspect_tasks import TASKS, InspectTaskError

    with pytest.raises(InspectTaskError, match="takes no parameter horizn"):
        TASKS["ipd"](horizn=3)
    with pytest.raises(InspectTaskError, match="tom/RPS-v0.*is not one of them"):
        TASKS["ipd"](env="tom/Negotiation-v1")
    with pytest.raises(InspectTaskError, match="tom/Negotiation-v2.*is not one of them"):
        TASKS["negotiation"](env="tom/Persuasion-v2")


@pytest.mark.slow
def test_matrix_task_scores_equal_the_suites(tmp_path):
    log = inspect_log("ipd", mock(matrix_rule), tmp_path, episodes=2, horizon=4, partners="tit_for_tat")
    got = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}
    requests: list[dict] = []
    (row,) = suite_rows(
        matrix_rule,
        tmp_path,
        *IPD_QA_COMMAND,
        requests=requests,
    )
    for key in ("regret_per_step", "tom_regret_per_step", "tom_accuracy"):
        assert got[key] == pytest.approx(row[key], abs=1e-12), key
    # every request of the suite's run is an Inspect model call, with the same messages, seed and temperature
    from inspect_ai.log import resolve_sample_attachments

    calls = [e for sample in log.samples for e in resolve_sample_attachments(sample).events if e.event == "model"]
    assert len(calls) == len(requests) > 0
    sent = sorted((r["messages"][-1]["content"], r.get("seed"), r.get("temperature")) for r in requests)
    made = sorted((c.input[-1].text, c.config.seed, c.config.temperature) for c in calls)
    assert made == sent


@pytest.mark.slow
def test_persuasive_tom_task_scores_equal_the_suites_authors_protocol(tmp_path):
    got = inspect_scores("persuasive_tom", mock(qa_letters_rule), tmp_path, qtypes="desire_er,belief_ee")
    rows = suite_rows(
        qa_letters_rule,
        tmp_path,
        *AUTHORS_QA.split(),
    )
    by_type = {r["qtype"]: r for r in rows if r.get("policy") == "llm" and "qtype" in r}
    assert set(by_type) >= {"desire_er", "belief_ee"}
    for qtype in ("desire_er", "belief_ee"):
        assert 100 * got[qtype] == pytest.approx(by_type[qtype]["accuracy"], abs=1e-9), qtype


@pytest.mark.slow
def test_common_tom_task_scores_equal_the_suites_release_protocol(tmp_path):
    from inspect_ai.log import resolve_sample_attachments

    log = inspect_log("common_tom", mock(yes_no_rule), tmp_path)
    got = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}
    requests: list[dict] = []
    rows = suite_rows(yes_no_rule, tmp_path, "common-ground", "--policy", "llm-release", requests=requests)
    # the release's requests: one user message at T = 1.0, no seed and no generation cap, as the suite sends them;
    # the suite also asks v2's unscored fillers (each question on its own: they change no score), Inspect does not
    from collections import Counter

    calls = [e for sample in log.samples for e in resolve_sample_attachments(sample).events if e.event == "model"]
    made = Counter(
        (len(c.input), c.input[-1].text, c.config.seed, c.config.temperature, c.config.max_tokens) for c in calls
    )
    sent = Counter(
        (len(r["messages"]), r["messages"][-1]["content"], r.get("seed"), r.get("temperature"), r.get("max_tokens"))
        for r in requests
    )
    assert sum(made.values()) == len(log.samples) == rows[0]["n"] and made <= sent
    assert all(m[2] is None and m[3] == 1.0 and m[4] is None for m in made)
    by_order = {str(r["order"]): r for r in rows}
    assert 100 * got["accuracy"] == pytest.approx(by_order["all"]["accuracy"], abs=1e-9)
    for order in ("1", "2", "3"):
        assert 100 * got[f"order_{order}"] == pytest.approx(by_order[order]["accuracy"], abs=1e-9), order


@pytest.mark.slow
def test_live_persuasion_task_scores_equal_the_suites_with_the_reader_on_a_role(tmp_path):
    reader = mock(live_rule)
    got = inspect_scores(
        "persuasion",
        mock(live_rule),
        tmp_path,
        model_roles={"persuadee": reader},
        episodes=1,
        reader="llm",
        families="health,work",
    )
    (row,) = suite_rows(
        live_rule,
        tmp_path,
        "persuasion",
        "--env",
        "live",
        "--policy",
        "llm",
        "--episodes",
        "1",
        "--reader",
        "llm",
        "--families",
        "health,work",
    )
    assert 100 * got["success"] == pytest.approx(row["success"], abs=1e-9)
    assert got["regret"] == pytest.approx(row["regret"], abs=1e-12)
    for target in ("desire", "belief", "intention"):
        assert got[f"{target}_accuracy"] == pytest.approx(row[f"{target}_accuracy"], abs=1e-9), target


@pytest.mark.slow
def test_negotiation_task_scores_equal_the_suites_with_llm_parties_on_a_role(tmp_path):
    got = inspect_scores(
        "negotiation",
        mock(negotiation_rule),
        tmp_path,
        model_roles={"parties": mock(negotiation_rule)},
        episodes=1,
        scenarios="hopkins_hmo",
        conflict_mode="general",
        mediator="llm-generic",
        parties="llm",
    )
    (row,) = suite_rows(
        negotiation_rule,
        tmp_path,
        *MEDIUM_NEGOTIATION.split(),
        "--parties",
        "llm",
    )
    for key in ("cc", "tle", "rl", "me", "mi"):
        if row[key] is None:
            assert key not in got, key
        else:
            assert got[key] == pytest.approx(row[key], abs=1e-9), key


@pytest.mark.slow
def test_negotiation_task_plays_v2_as_the_suites_env_option_does(tmp_path):
    """``-T env=tom/Negotiation-v2`` (another env class: the mediator first) is accepted and
    plays the v2 id of its level, as ``negotiation --env tom/Negotiation-v2`` does."""
    from benchmarks.harnesses.inspect_tasks import RECORD

    log = inspect_log(
        "negotiation",
        mock(negotiation_rule),
        tmp_path,
        env="tom/Negotiation-v2",
        episodes=1,
        scenarios="hopkins_hmo",
        conflict_mode="general",
        mediator="llm-generic",
    )
    got = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}
    (row,) = suite_rows(
        negotiation_rule,
        tmp_path,
        *MEDIUM_NEGOTIATION.split(),
        "--env",
        "tom/Negotiation-v2",
    )
    for key in ("cc", "tle", "me"):
        assert got[key] == pytest.approx(row[key], abs=1e-9), key
    record = log.samples[0].store[RECORD]
    assert record["env_version"] == 2  # the v2 id was played (v1 records carry no env_version)
    assert record["episode"]["transcript"][0]["kind"] == "opening"


@pytest.mark.slow
def test_a_task_runs_against_the_loopback_server_and_from_the_command_line(tmp_path):
    """``openai-api/scripted/scripted`` on the loopback server, through the Python API and through
    ``inspect eval tom_envs/ipd`` (the entry point): the same scores as mockllm on the same rule."""
    server = ScriptedServer(matrix_rule)
    env = {
        **os.environ,
        "SCRIPTED_BASE_URL": server.url,
        "SCRIPTED_API_KEY": "none",
        "INSPECT_LOG_DIR": str(tmp_path / "cli"),
        "INSPECT_DISPLAY": "none",
    }
    try:
        os.environ.update(SCRIPTED_BASE_URL=server.url, SCRIPTED_API_KEY="none")
        via_server = inspect_scores(
            "ipd", get_model("openai-api/scripted/scripted", memoize=False), tmp_path, episodes=2, horizon=3
        )
        cli = subprocess.run(
            [
                str(Path(sys.executable).parent / "inspect"),
                "eval",
                "tom_envs/ipd",
                "--model",
                "openai-api/scripted/scripted",
                "-T",
                "episodes=2",
                "-T",
                "horizon=3",
                "--log-format",
                "json",
            ],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.environ.pop("SCRIPTED_BASE_URL", None)
        os.environ.pop("SCRIPTED_API_KEY", None)
        server.close()
    assert cli.returncode == 0, cli.stderr[-3000:]
    with_mock = inspect_scores("ipd", mock(matrix_rule), tmp_path, episodes=2, horizon=3)
    assert via_server == with_mock
    (log,) = (tmp_path / "cli").glob("*.json")
    data = json.loads(log.read_text())
    assert data["status"] == "success" and data["eval"]["task_registry_name"] == "tom_envs/ipd"
    cli_scores = {k: v["value"] for s in data["results"]["scores"] for k, v in s["metrics"].items()}
    assert cli_scores == pytest.approx(with_mock)


@pytest.mark.slow
def test_two_seat_persuasion_task_scores_equal_the_suites_with_the_persuadee_on_a_role(tmp_path):
    """Both seats language models: the persuader the eval's model, the persuadee the ``persuadee``
    role; the same episodes as :func:`benchmarks.persuasion.live.play_two_seat` on the loopback server."""
    from benchmarks.persuasion.live import family_names, play_two_seat
    from benchmarks.runner_envs import make_env
    from policies.llm import OpenAIBackend
    from policies.persuasion.llm import LLMPersuadee, LLMPersuader
    from tests.llm.test_persuasion_live_llm import _two_llm_rule

    got = inspect_scores(
        "persuasion_two_seat",
        mock(_two_llm_rule),
        tmp_path,
        model_roles={"persuadee": mock(_two_llm_rule)},
        episodes=2,
        families="work",
    )
    server = ScriptedServer(_two_llm_rule)
    backend = OpenAIBackend(server.url, "scripted", max_retries=0, timeout=10)
    try:
        env = make_env("tom/Persuasion-TwoSeat-v2", record=True, horizon=4, families=family_names("work"))
        eps = [
            play_two_seat(env, LLMPersuader(backend), LLMPersuadee(backend), s, options={"family": "work"})
            for s in (0, 1)
        ]
    finally:
        backend.close()
        server.close()
    for key in ("success", "regret", "persuadee_strategy_accuracy", "fidelity", "intention_accuracy"):
        assert got[key] == pytest.approx(sum(float(e[key]) for e in eps) / 2, abs=1e-12), key


@pytest.mark.skipif(not os.environ.get("TOM_ENVS_PERSUASION_RELEASE"), reason="TOM_ENVS_PERSUASION_RELEASE not set")
def test_persuasive_tom_task_on_the_release_puts_every_question_with_the_release_prompts():
    """On the release's data the task holds its 2,459 desire_ee questions (001's Table 4), put with the
    prompt texts read from the release's evaluation/evaluate.py (source ``release``)."""
    from benchmarks.harnesses.inspect_tasks import TASKS
    from benchmarks.persuasion.inspect_tasks import _authors_protocol

    data = str(Path(os.environ["TOM_ENVS_PERSUASION_RELEASE"]) / "data")
    task = TASKS["persuasive_tom"](data_dir=data, qtypes="desire_ee")
    assert len(task.dataset) == 2459
    assert _authors_protocol(data, None).prompts.source == "release"
    first = task.dataset[0].input
    assert [m.role for m in first] == ["system", "user"] and "Answer:" in first[-1].text


# ---------------------------------------------------------------------- every shared parameter, honoured or refused
def test_a_shared_parameter_a_task_cannot_honour_is_refused_by_name():
    """Every task takes every shared parameter but those it refuses with a reason; giving a refused one (or a
    value a play cannot use) is a named error when the task is made, never an option silently ignored."""
    from benchmarks.harnesses.inspect_spec import declared_tasks
    from benchmarks.harnesses.inspect_tasks import SHARED, TASKS, InspectTaskError

    values = {
        "env": "tom/IPD-v0",
        "episodes": 2,
        "seed": 3,
        "horizon": 3,
        "data_dir": "x",
        "max_resamples": 1,
        "fallback": "random",
    }
    assert set(values) == set(SHARED)
    refused = {}
    for spec in declared_tasks():
        assert set(spec.refuses) <= set(SHARED), spec.name
        for name in spec.refuses:
            with pytest.raises(InspectTaskError, match=f"tom_envs/{spec.name} does not take -T {name}: "):
                TASKS[spec.name](**{name: values[name]})
        refused[spec.name] = set(spec.refuses)
    assert refused["common_tom"] == {"episodes", "horizon", "max_resamples", "fallback"}
    assert refused["persuasive_tom"] == {"episodes", "horizon"}
    assert refused["negotiation"] == {"horizon", "data_dir"}
    assert refused["ipd"] == refused["persuasion"] == refused["persuasion_two_seat"] == {"data_dir"}
    with pytest.raises(InspectTaskError, match="tom/MatrixGame-v0 takes its payoff table as an argument"):
        TASKS["ipd"](env="tom/MatrixGame-v0")
    with pytest.raises(InspectTaskError, match="-T fallback must be one of raise, random, got 'first'"):
        TASKS["ipd"](fallback="first")
    with pytest.raises(InspectTaskError, match="-T reader must be scripted or llm"):
        TASKS["persuasion"](reader="model")


def garbled(rule):
    """``rule``, but a reply nobody can read for one request in three (the same prompt and seed, the same
    garbage): the re-asks and fallbacks then depend on ``max_resamples`` and ``fallback``."""

    def reply(content: str, seed) -> str:
        return "???" if (_h(content) ^ (seed or 0)) % 3 == 0 else rule(content, seed)

    return reply


def _model_calls(log) -> list[tuple]:
    """Every model call of the eval (the eval's model and its roles): last message, seed, temperature, cap."""
    from inspect_ai.log import resolve_sample_attachments

    return sorted(
        (c.input[-1].text, c.config.seed, c.config.temperature, c.config.max_tokens)
        for sample in log.samples
        for c in resolve_sample_attachments(sample).events
        if c.event == "model"
    )


def _requests(requests: list[dict]) -> list[tuple]:
    return sorted(
        (r["messages"][-1]["content"], r.get("seed"), r.get("temperature"), r.get("max_tokens")) for r in requests
    )


def _scores(log) -> dict[str, float]:
    return {k: v.value for s in log.results.scores for k, v in s.metrics.items()}


#: Non-default values of the shared parameters (each task gets those it takes; env where it has another id).
SHARED_VALUES = {"episodes": 2, "seed": 3, "horizon": 3, "max_resamples": 1, "fallback": "random"}
SHARED_FLAGS = ["--episodes", "2", "--seed", "3", "--horizon", "3", "--max-resamples", "1", "--fallback", "random"]


@pytest.mark.slow
def test_every_shared_parameter_of_a_matrix_task_is_the_commands(tmp_path):
    rule = garbled(matrix_rule)
    log = inspect_log("ipd", mock(rule), tmp_path, env="tom/RPS-v0", **SHARED_VALUES)
    requests: list[dict] = []
    (row,) = suite_rows(
        rule,
        tmp_path,
        "matrix",
        "--policy",
        "llm",
        "--strategies",
        "qa",
        "--games",
        "RPS",
        "--partners",
        "tit_for_tat",
        *SHARED_FLAGS,
        requests=requests,
    )
    assert _model_calls(log) == _requests(requests) and row["episodes"] == 2 and row["game"] == "RPS"
    assert row["reasks"] > 0 and row["fallbacks"] > 0  # the garbage was re-asked once, then fell back
    got = _scores(log)
    for key in ("regret_per_step", "tom_regret_per_step", "tom_accuracy"):
        assert got[key] == pytest.approx(row[key], abs=1e-12), key


@pytest.mark.slow
def test_every_shared_parameter_of_the_qa_tasks_is_the_commands(tmp_path):
    """``seed`` and ``data_dir`` (a copy of the sample) and, on persuasive_tom, ``max_resamples`` and ``fallback``."""
    import shutil

    from tom_envs.common_ground.corpus import SAMPLE_DATA_DIR

    persuasion_data = Path(shutil.copytree(ROOT / "tom_envs" / "persuasion" / "sample_data", tmp_path / "pdata"))
    rule = garbled(qa_letters_rule)
    log = inspect_log(
        "persuasive_tom",
        mock(rule),
        tmp_path,
        env="tom/PersuasiveToM-v1",
        seed=3,
        data_dir=str(persuasion_data),
        max_resamples=1,
        fallback="random",
        qtypes="desire_er,belief_ee",
    )
    requests: list[dict] = []
    rows = suite_rows(
        rule,
        tmp_path / "p",
        *AUTHORS_QA.split(),
        "--seed",
        "3",
        "--data-dir",
        str(persuasion_data),
        "--max-resamples",
        "1",
        "--fallback",
        "random",
        requests=requests,
    )
    assert _model_calls(log) == _requests(requests)
    # per question: the same reading (or fallback) and, read, the same option; a random fallback draws from the
    # question's own stream, where the command draws a dialogue's fallbacks in turn from one (docs/harnesses.md)
    from benchmarks.harnesses.inspect_tasks import RECORD

    made: dict[str, list] = {}
    for sample in sorted(log.samples, key=lambda x: int(str(x.id).rsplit(":", 1)[1])):
        rec = sample.store[RECORD]
        made.setdefault(str(sample.id).rsplit(":", 1)[0], []).append((rec["parse_rule"], rec["index"]))
    asked = {
        str(r["dialogue"]): [(a["parse_rule"], a["chosen"]) for a in r["answers"]]
        for f in (tmp_path / "p" / "out").rglob("*.jsonl")
        for r in map(json.loads, f.read_text().splitlines())
    }
    assert made.keys() == asked.keys() and rows
    for dialogue, answers in asked.items():
        assert [rule for rule, _ in made[dialogue]] == [rule for rule, _ in answers], dialogue
        assert [i for rule, i in made[dialogue] if rule != "fallback"] == [
            i for rule, i in answers if rule != "fallback"
        ], dialogue
    assert any(rule == "fallback" for answers in asked.values() for rule, _ in answers)

    common_data = Path(shutil.copytree(SAMPLE_DATA_DIR, tmp_path / "cdata"))
    log = inspect_log(
        "common_tom", mock(yes_no_rule), tmp_path, env="tom/CommonToM-v2", seed=3, data_dir=str(common_data)
    )
    requests = []
    rows = suite_rows(
        yes_no_rule,
        tmp_path / "c",
        "common-ground",
        "--policy",
        "llm-release",
        "--seed",
        "3",
        "--data-dir",
        str(common_data),
        requests=requests,
    )
    from collections import Counter

    made, sent = Counter(_model_calls(log)), Counter(_requests(requests))
    assert sum(made.values()) == rows[0]["n"] and made <= sent  # the suite also asks v2's unscored fillers
    by_order = {str(r["order"]): r for r in rows}
    assert 100 * _scores(log)["accuracy"] == pytest.approx(by_order["all"]["accuracy"], abs=1e-9)


@pytest.mark.slow
def test_every_shared_parameter_of_the_live_persuasion_tasks_is_the_commands(tmp_path):
    from benchmarks.persuasion.live import family_names, play_two_seat
    from benchmarks.runner_envs import make_env
    from policies.llm import OpenAIBackend
    from policies.persuasion.llm import LLMPersuadee, LLMPersuader
    from tests.llm.test_persuasion_live_llm import _two_llm_rule

    rule = garbled(live_rule)
    # the scripted reader: the command's LLM reader draws its request seeds from one stream over the run's
    # episodes, the task's from one per episode (same replies at the reader's temperature 0; docs/harnesses.md)
    log = inspect_log("persuasion", mock(rule), tmp_path, env="tom/Persuasion-v2", families="work", **SHARED_VALUES)
    requests: list[dict] = []
    (row,) = suite_rows(
        rule,
        tmp_path,
        "persuasion",
        "--env",
        "live",
        "--policy",
        "llm",
        "--families",
        "work",
        *SHARED_FLAGS,
        requests=requests,
    )
    assert _model_calls(log) == _requests(requests)
    got = _scores(log)
    assert 100 * got["success"] == pytest.approx(row["success"], abs=1e-9)
    assert got["regret"] == pytest.approx(row["regret"], abs=1e-12)

    rule = garbled(_two_llm_rule)
    log = inspect_log(
        "persuasion_two_seat",
        mock(rule),
        tmp_path,
        model_roles={"persuadee": mock(rule)},
        env="tom/Persuasion-TwoSeat-v2",
        families="work",
        **SHARED_VALUES,
    )
    server = ScriptedServer(rule)
    backend = OpenAIBackend(server.url, "scripted", max_retries=0, timeout=10)
    caller = {"max_resamples": 1, "fallback": "random"}
    try:
        env = make_env("tom/Persuasion-TwoSeat-v2", record=True, horizon=3, families=family_names("work"))
        eps = [
            play_two_seat(
                env, LLMPersuader(backend, **caller), LLMPersuadee(backend, **caller), s, options={"family": "work"}
            )
            for s in (3, 4)
        ]
    finally:
        backend.close()
        server.close()
    assert _model_calls(log) == _requests(server.requests)
    got = _scores(log)
    for key in ("success", "regret", "persuadee_strategy_accuracy", "fidelity"):
        assert got[key] == pytest.approx(sum(float(e[key]) for e in eps) / 2, abs=1e-12), key


@pytest.mark.slow
def test_every_shared_parameter_of_the_negotiation_task_is_the_commands(tmp_path):
    """``max_resamples`` included: every LLM part re-asks as often as the command's --max-resamples says."""
    rule = garbled(negotiation_rule)
    params = {k: v for k, v in SHARED_VALUES.items() if k != "horizon"} | {"episodes": 1}
    log = inspect_log(
        "negotiation",
        mock(rule),
        tmp_path,
        env="tom/Negotiation-v2",
        scenarios="hopkins_hmo",
        conflict_mode="general",
        mediator="llm-generic",
        **params,
    )
    requests: list[dict] = []
    (row,) = suite_rows(
        rule,
        tmp_path,
        *MEDIUM_NEGOTIATION.split(),
        "--env",
        "tom/Negotiation-v2",
        "--seed",
        "3",
        "--max-resamples",
        "1",
        "--fallback",
        "random",
        requests=requests,
    )
    assert _model_calls(log) == _requests(requests)
    got = _scores(log)
    for key in ("cc", "tle", "rl", "me", "mi"):
        if row[key] is None:
            assert key not in got, key
        else:
            assert got[key] == pytest.approx(row[key], abs=1e-9), key


# ---------------------------------------------------------------------- offline
@pytest.mark.slow
def test_the_docs_mockllm_example_runs_offline(tmp_path):
    """The offline example of docs/harnesses.md, as written, with no hub (HF_HUB_OFFLINE=1), an empty tiktoken
    cache and every download refused (a dead proxy): mockllm counts its usage without tiktoken's encoding."""
    import shlex

    doc = (ROOT / "docs" / "harnesses.md").read_text()
    (line,) = [
        ln for ln in doc.splitlines() if ln.startswith("HF_HUB_OFFLINE=1 inspect eval") and "mockllm/model" in ln
    ]
    words = shlex.split(line)
    env = {
        **os.environ,
        "INSPECT_LOG_DIR": str(tmp_path / "logs"),
        "INSPECT_DISPLAY": "none",
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
        "http_proxy": "http://127.0.0.1:9",
    }
    start = words.index("inspect")
    env.update(w.split("=", 1) for w in words[:start])  # the line's own variables
    argv = [str(Path(sys.executable).parent / "inspect"), *words[start + 1 :], "--log-format", "json"]
    assert env["HF_HUB_OFFLINE"] == "1"
    done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    (log,) = (tmp_path / "logs").glob("*.json")
    data = json.loads(log.read_text())
    assert data["status"] == "success", data.get("error")
    assert data["stats"]["model_usage"]["mockllm/model"]["input_tokens"] > 0
