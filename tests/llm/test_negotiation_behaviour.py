"""The release's behaviour scores (monitoring / planning / simple) of our own episodes, on the scripted
loopback server: a fixed judge reply gives the expected scores, the prompts equal the release's on a fixed
transcript (its ``scripts/behavior_evaluation.py`` run with a stand-in client when
``TOM_ENVS_PROMEDIATE_RELEASE`` is set), and ``negotiation --behaviour-judge`` keys them into the results."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.__main__ import main
from policies.llm.errors import ResampleLimitReached
from policies.negotiation.llm.behaviour import LLMBehaviourJudge, episode_scores, judged_lines
from tom_envs.negotiation.release_logs import read_release_run, release_run_metrics, write_release_conversation

from .scripted_server import scripted_backend
from .test_negotiation_llm import scripted_reply

RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")


def _line(turn, speaker, text, seat=None, kind="propose"):
    seat = seat or ("mediator_0" if speaker == "Mediator" else "party_0")
    return {"turn": turn, "speaker": speaker, "seat": seat, "kind": kind, "text": text}


#: a fixed transcript: the opening, party lines, two interventions, a conclusion
EVENTS = [
    _line(0, "Mediator", "Welcome everyone! Let's discuss!", kind="opening"),
    _line(1, "Alex Kim", "We need (b) on formulary status."),
    _line(2, "Jamie Lee", "That's not acceptable to us; (a) is the only option."),
    _line(3, "Mediator", "Let me summarise: Alex favours (b), Jamie (a). What do you both need?", kind="intervention"),
    _line(4, "Lee Park", 'I could live with (b) if the term is "two years".'),
    _line(5, "Mediator", "Could (b) with a two-year term work for everyone?", kind="intervention"),
    _line(6, "Alex Kim", "Yes."),
    _line(7, "Mediator", "Then we have an agreement.", kind="conclusion"),
]

REPLIES = {  # the fixed judge reply per prompt (the monitoring reply fenced, as GPT-4.1 often answers)
    "monitoring": "```json\n"
    + json.dumps(
        {
            "perception_alignment": {"evidence": "e", "reasoning": "r", "score": -1},
            "emotional_dynamics": {"score": -1},
            "cognitive_challenges": {"score": -1},
            "communication_breakdowns": {"score": -1},
        }
    )
    + "\n```",
    "planning": json.dumps(
        {
            d: {"score": 5}
            for d in ("perception_alignment", "emotional_dynamics", "cognitive_challenges", "communication_breakdowns")
        }
    ),
    "simple": json.dumps(
        {
            "perception_alignment": {"score": 4},
            "emotional_dynamics": {"score": -1},
            "cognitive_challenges": {"score": 3},
            "communication_breakdowns": {"score": 2},
        }
    ),
}


def _kind(content: str) -> str | None:
    if "evaluate the mediator's ability to intervene on user requests" in content:
        return "monitoring"
    if "evaluate the mediator's ability to facilitate planning" in content:
        return "planning"
    if "analyze if the mediator helps in this problem solving process" in content:
        return "simple"
    return None


def judge_reply(content: str, seed: int | None) -> str:
    kind = _kind(content)
    return REPLIES[kind] if kind else scripted_reply(content, seed)


@pytest.fixture
def judged():
    with scripted_backend(judge_reply) as pair:
        yield pair


def test_judged_lines_are_the_mediator_lines_but_the_opening_with_the_release_prior():
    lines = judged_lines(EVENTS)
    assert [ln["index"] for ln in lines] == [3, 5, 7]
    assert (
        lines[0]["speech"]
        == '🔄 Turn 4: Mediator: "Let me summarise: Alex favours (b), Jamie (a). What do you both need?"'
    )
    # from the previous mediator line (the opening first) up to this one
    assert lines[0]["conversation_prior"] == [
        '🔄 Turn 1: Mediator: "Welcome everyone! Let\'s discuss!"',
        '🔄 Turn 2: Alex Kim: "We need (b) on formulary status."',
        '🔄 Turn 3: Jamie Lee: "That\'s not acceptable to us; (a) is the only option."',
    ]
    assert (
        lines[1]["conversation_prior"][0].startswith("🔄 Turn 4: Mediator:")
        and len(lines[1]["conversation_prior"]) == 2
    )
    # a v1 transcript has no opening: the first judged line's prior starts at the first line
    assert judged_lines(EVENTS[1:])[0]["conversation_prior"] == [
        ln.replace(f"Turn {i + 2}", f"Turn {i + 1}") for i, ln in enumerate(lines[0]["conversation_prior"][1:])
    ]


def test_a_fixed_judge_reply_gives_the_release_scores(judged):
    server, backend = judged
    judge = LLMBehaviourJudge(backend, ("monitoring", "planning", "simple"))
    judge.reset(0)
    out = judge.score_episode(EVENTS)
    # per line: simple (4 + 3 + 2) / 3 (the -1 left out), monitoring all -1 -> 0, planning 5
    assert out["simple_score"] == pytest.approx(3.0)
    assert out["monitoring_score"] == 0 and out["planning_score"] == 5
    assert [e["line"] for e in out["behaviour"]] == [3, 5, 7] and out["behaviour_judge"] == [
        "monitoring",
        "planning",
        "simple",
    ]
    assert judge.caller.calls == [("behaviour_monitoring", 3), ("behaviour_planning", 3), ("behaviour_simple", 3)]
    body = server.requests[-1]
    assert body["messages"][0] == {"role": "system", "content": "You are an expert in negotiation"}
    assert body["temperature"] == 0.1 and body["max_tokens"] == 5000 and "seed" not in body
    # the release's script as it runs asks the simple prompt only: the others are not scores of anything
    simple = LLMBehaviourJudge(backend)
    simple.reset(0)
    assert {k: v for k, v in simple.score_episode(EVENTS).items() if k.endswith("_score")} == {
        "monitoring_score": None,
        "planning_score": None,
        "simple_score": pytest.approx(3.0),
    }
    assert episode_scores([]) == {"monitoring_score": None, "planning_score": None, "simple_score": None}


def test_an_unusable_judge_reply_is_reasked_then_an_error_or_a_flagged_random_score():
    with scripted_backend(lambda content, seed: '{"perception_alignment": {"score": 9}}' if _kind(content) else "") as (
        _,
        backend,
    ):
        judge = LLMBehaviourJudge(backend, max_resamples=1)
        with pytest.raises(ResampleLimitReached, match="perception_alignment"):
            judge.score_episode(EVENTS)
        judge = LLMBehaviourJudge(backend, max_resamples=1, fallback="random")
        judge.reset(3)
        out = judge.score_episode(EVENTS)
        assert all(e["fallback"] == ["simple"] for e in out["behaviour"]) and judge.stats["fallbacks"] == 3
        assert judge.stats["parse_failures"] == 6


def test_negotiation_behaviour_judge_keys_the_release_scores_into_rows_and_records(judged, tmp_path, capsys):
    server, _ = judged
    argv = [
        "negotiation",
        "--policy",
        "none,social",
        "--mode",
        "hard",
        "--scenarios",
        "ias",
        "--episodes",
        "1",
        "--env",
        "tom/Negotiation-v2",
        "--format",
        "json",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert all("simple_score" not in row for row in plain)
    llm = ["--backend", "openai", "--base-url", server.url, "--model", "scripted"]
    assert main([*argv, "--behaviour-judge", "all", *llm]) == 0
    rows = json.loads(capsys.readouterr().out)
    none, social = rows
    assert social["simple_score"] == pytest.approx(3.0) and social["planning_score"] == 5
    assert social["monitoring_score"] == 0
    assert none["simple_score"] is None  # NoAgent: no mediator line to judge (the release prints -1)
    assert social["llm_fallbacks_by"]["behaviour_judge"]["decisions"] > 0
    records = [
        json.loads(line) for p in (tmp_path / "negotiation").glob("*.jsonl") for line in p.read_text().splitlines()
    ]
    judged_recs = [r for r in records if "behaviour" in r["episode"]]
    assert len(judged_recs) == 2 and len(records) == 4  # keyed apart from the runs without the judge
    social_rec = next(r for r in judged_recs if r["mediator"] == "social")["episode"]
    assert [e["turn"] for e in social_rec["behaviour"]] == social_rec["mediator_turns"]
    # the report shows them, and marks the v2 cells
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "report")]) == 0
    page = (tmp_path / "report" / "index.md").read_text(encoding="utf-8")
    assert (
        "### Behaviour scores" in page
        and ("| competing | social | scripted (v2) | 0.00 (n = 1) | 5.00 (n = 1) | 3.00 (n = 1) |") in page
    )
    capsys.readouterr()
    # a judge needs a model
    assert main([*argv, "--behaviour-judge", "simple"]) == 2
    assert "--model" in capsys.readouterr().err


def _release_main(release: Path, reply: str) -> tuple[dict, list[dict]]:
    """The release's ``behavior_evaluation.main`` (taken with ast) with a stand-in OpenAI client that answers
    ``reply``; its globals and the requests it made."""
    src = (release / "scripts" / "behavior_evaluation.py").read_text(encoding="utf-8")
    tree = ast.parse(src)
    mod = ast.Module(
        body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"], type_ignores=[]
    )
    requests: list[dict] = []

    def create(**kwargs):
        requests.append(kwargs)
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=reply))])

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    opened = []

    def tracked_open(*args, **kwargs):  # the release leaves its files open: closed after its main returns
        opened.append(open(*args, **kwargs))
        return opened[-1]

    scope = {"client": client, "json": json, "sys": sys, "tqdm": lambda x: x, "open": tracked_open, "opened": opened}
    exec(compile(mod, str(release / "scripts" / "behavior_evaluation.py"), "exec"), scope)
    return scope, requests


def _release_prompt(release: Path, name: str, conversation_prior: list[str], speech: str) -> str:
    """The release's ``<name>_prompt`` f-string evaluated on a prior and speech (monitoring and planning are
    built but not sent by its script)."""
    src = (release / "scripts" / "behavior_evaluation.py").read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == f"{name}_prompt":
            expr = ast.Expression(node.value)
            return eval(
                compile(expr, "behavior_evaluation.py", "eval"),
                {"conversation_prior": conversation_prior, "speech": speech},
            )
    raise AssertionError(f"no {name}_prompt in the release")


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
def test_the_prompts_and_scores_equal_the_release_script_on_a_fixed_transcript(judged, tmp_path):
    release = Path(RELEASE)
    server, backend = judged
    conv = write_release_conversation(EVENTS, tmp_path / "conversation.txt")
    scope, theirs = _release_main(release, REPLIES["simple"])
    scope["main"](str(conv), str(tmp_path / "behavior_score.json"))
    for f in scope["opened"]:
        f.close()
    judge = LLMBehaviourJudge(backend, ("monitoring", "planning", "simple"))
    judge.reset(0)
    server.requests.clear()
    ours = judge.score_episode(EVENTS)
    sent = [r for r in server.requests if _kind(r["messages"][-1]["content"]) == "simple"]
    assert [r["messages"] for r in sent] == [r["messages"] for r in theirs]
    assert all(
        r["temperature"] == t["temperature"] and r["max_tokens"] == t["max_tokens"] for r, t in zip(sent, theirs)
    )
    for line in judged_lines(EVENTS):
        for kind in ("monitoring", "planning", "simple"):
            mine = LLMBehaviourJudge.messages(kind, line)[1]["content"]
            assert mine == _release_prompt(release, kind, line["conversation_prior"], line["speech"]), kind
    # the release's own file, read by the importer (its evaluation's averaging), gives our simple score
    (tmp_path / "agreement_scores.json").write_text(json.dumps([{"t": []}] * (len(EVENTS) + 1)))
    theirs_scores = release_run_metrics(read_release_run(tmp_path))
    assert theirs_scores["simple_score"] == pytest.approx(ours["simple_score"]) == pytest.approx(3.0)
    assert len(theirs) == len(ours["behaviour"]) == 3
