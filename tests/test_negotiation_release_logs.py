"""Issue 28: the release's own output logs (conversation.txt + agreement_scores.json + behavior_score.json, as
its scripts write them), imported and scored with our metric functions, give the release's own figures."""

from __future__ import annotations

import ast
import io
import itertools
import json
import os
from pathlib import Path
from statistics import mean

import pytest

from policies.negotiation.scripted import make_mediator
from tom_envs.negotiation.env_v2 import NegotiationEnvV2
from tom_envs.negotiation.metrics import release_consensus_change
from tom_envs.negotiation.release_logs import ReleaseLogError, read_release_run, release_run_metrics, write_release_run
from tom_envs.negotiation.scenario import Scenario

RELEASE = os.environ.get("TOM_ENVS_PROMEDIATE_RELEASE")
N = 30
MEDIATOR = {0, 3, 8, 12, 17, 21, 26}  # line indices (0: the mediator's opening line)
T1 = [
    0.2,
    0.2,
    0.3,
    0.3,
    0.4,
    0.3,
    0.2,
    0.2,
    0.3,
    0.4,
    0.4,
    0.5,
    0.5,
    0.6,
    0.4,
    0.3,
    0.3,
    0.4,
    0.5,
    0.6,
    0.6,
    0.9,
    0.92,
    0.95,
    0.9,
    0.95,
    0.97,
    0.9,
    0.95,
    0.95,
    1.0,
]
T2 = [
    0.6,
    0.64,
    0.6,
    0.6,
    0.6,
    0.66,
    0.7,
    0.76,
    0.7,
    0.7,
    0.68,
    0.44,
    0.5,
    0.44,
    0.32,
    0.3,
    0.36,
    0.4,
    0.4,
    0.4,
    0.5,
    0.42,
    0.46,
    0.4,
    0.28,
    0.34,
    0.4,
    0.4,
    0.4,
    0.44,
    0.4,
]
MENTION = {
    "Price": [1, 2, 4, 5, 7, 9, 10, 12, 13, 15, 18, 19, 22, 24, 27, 29],
    "Term": [2, 3, 6, 8, 11, 14, 16, 17, 20, 23, 25, 28],
}
ADDRESSED = {3: ["Price"], 8: ["Term"], 12: ["Price", "Term"], 17: ["Term"], 21: ["Price"], 26: ["Term"]}
#: the release's own figures for these files (scripts/evaluation.py run on them with the stand-in client
#: below answering its two GPT-4.1 questions from MENTION and ADDRESSED: test_the_release_code_agrees)
EXPECTED = {
    "frequency": 0.2,
    "consensus_change": 0.20183333333333353,
    "success_rate": 0.5,
    "success_rate_max": 0.5,
    "latency": 2.0,
    "intervene_yield": -0.04249999999999998,
    "mean_topic_efficiency": 0.013333333333333332,
    "monitoring_score": 0,
    "planning_score": 0,
    "simple_score": 3.0,
}


def _pair(x: float, none: bool = False) -> list[dict]:
    # three parties: three pairs; a None score counts as a pair (the release sums the truthy ones over all pairs)
    return [
        {"overall_consensus_score": x},
        {"overall_consensus_score": x},
        {"overall_consensus_score": None if none else x},
    ]


def write_run(folder: Path) -> Path:
    lines = [
        f'🔄 Turn {i + 1}: {"Mediator" if i in MEDIATOR else "Ana"}: "line {i}: on price and term"' for i in range(N)
    ]
    (folder / "conversation.txt").write_text(
        "(the run's log)\n\n==== 🏁 End of Conversation 🏁 ====\n\n"
        "📋 Conversation Summary:\n" + "\n".join(lines) + "\n",
        encoding="utf-8",
    )
    scores = [{"Price": _pair(a, none=n == 0), "Term": _pair(b)} for n, (a, b) in enumerate(zip(T1, T2))]
    (folder / "agreement_scores.json").write_text(json.dumps(scores), encoding="utf-8")
    behaviour = [
        {
            "monitoring": [],
            "planning": [],
            "simple": {
                "perception_alignment": {"score": 4},
                "emotional_dynamics": {"score": -1},
                "cognitive_challenges": {"score": 2},
            },
        }
        for _ in range(len(MEDIATOR) - 1)
    ]
    (folder / "behavior_score.json").write_text(json.dumps(behaviour), encoding="utf-8")
    return folder / "conversation.txt"


def _ours(tmp_path: Path) -> dict:
    run = read_release_run(write_run(tmp_path))
    return release_run_metrics(run, addressed=ADDRESSED, mentions=MENTION)


def test_an_imported_release_log_gives_the_release_figures(tmp_path):
    got = _ours(tmp_path)
    for key, want in EXPECTED.items():
        assert got[key] == pytest.approx(want, abs=1e-12), key
    assert got["mediator_lines"] == sorted(MEDIATOR - {0})


def _reply(answer: str):
    return type("R", (), {"choices": [type("C", (), {"message": type("M", (), {"content": answer})()})()]})()


def release_evaluation(answer) -> dict:
    """The release's scripts/evaluation.py (its functions, taken with ast; no import of its OpenAI client) in a
    namespace whose client answers its two GPT-4.1 questions by ``answer(prompt) -> str``."""
    src = (Path(RELEASE) / "scripts" / "evaluation.py").read_text(encoding="utf-8")
    keep = {
        "evaluate_consensus_change",
        "evaluate_frequency",
        "evaluate_topic_level_efficiency",
        "process_scores",
        "evaluate_success_rate",
        "evaluate_success_rate_max",
        "intervene_yield",
        "response_latency",
        "main",
        "get_average_behavior_scores",
        "print_behavior_scores",
    }
    tree = ast.parse(src)
    mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in keep], type_ignores=[])
    completions = type("Completions", (), {"create": lambda self, **kw: _reply(answer(kw["messages"][1]["content"]))})
    client = type("Client", (), {"chat": type("Chat", (), {"completions": completions()})()})()
    real_open = open

    def fake_open(path, *a, **k):
        return io.StringIO("options") if str(path).endswith("options.md") else real_open(path, *a, **k)

    ns = {
        "client": client,
        "tqdm": lambda x: x,
        "mean": mean,
        "open": fake_open,
        "json": json,
        "np": __import__("numpy"),
        "print": lambda *a, **k: None,
    }
    exec(compile(mod, "evaluation.py", "exec"), ns)
    return ns


def _speech(prompt: str) -> str:
    return prompt.split("Current speech: ")[1].split("\n")[0]


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
def test_the_release_code_agrees(tmp_path):
    """Run the release's scripts/evaluation.py (its functions, taken with ast) on the same files."""

    def answer(p):
        i = int(_speech(p).split('"line ')[1].split(":")[0])
        if "check if the current speech mentions this topic" in p:
            topic = p.split("negotiation about ")[1].split(".")[0]
            return "True" if i in MENTION[topic] else "False"
        return ", ".join(ADDRESSED[i])

    ns = release_evaluation(answer)
    conv = write_run(tmp_path)
    iy, per_step, latency, success, cc, freq, tle, _ = ns["main"](
        str(tmp_path / "agreement_scores.json"), str(conv), "Social", "x"
    )
    scores = json.loads((tmp_path / "agreement_scores.json").read_text(encoding="utf-8"))
    success_max = ns["evaluate_success_rate_max"](ns["process_scores"](scores))
    monitor, planning, simple = ns["print_behavior_scores"](str(tmp_path / "behavior_score.json"))
    release = {
        "frequency": freq,
        "consensus_change": cc,
        "success_rate": success,
        "success_rate_max": success_max,
        "latency": latency,
        "intervene_yield": iy,
        "mean_topic_efficiency": tle,
        "monitoring_score": monitor,
        "planning_score": planning,
        "simple_score": simple,
    }
    assert release == pytest.approx(EXPECTED, abs=1e-12)
    got = _ours(tmp_path)
    assert [None if v == -1 else v for v in per_step] == pytest.approx(got["intervene_per_step"])
    assert {k: got[k] for k in release} == pytest.approx(release, abs=1e-12)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: (d / "conversation.txt").write_text("no summary\n", encoding="utf-8"), "Conversation Summary"),
        (
            lambda d: (d / "conversation.txt").write_text("📋 Conversation Summary:\nAna says hi\n", encoding="utf-8"),
            "is not '<turn>: <speaker>: <words>'",
        ),
        (lambda d: (d / "agreement_scores.json").write_text("[]", encoding="utf-8"), "non-empty list"),
        (
            lambda d: (d / "agreement_scores.json").write_text(
                json.dumps([{"Price": _pair(0.5)}] * 3), encoding="utf-8"
            ),
            "3 score entries for 30 lines",
        ),
        (
            lambda d: (d / "agreement_scores.json").write_text(
                json.dumps([{"Price": [{"overall_consensus_score": "high"}]}] * 31), encoding="utf-8"
            ),
            "must be numbers",
        ),
        (lambda d: (d / "behavior_score.json").write_text("{}", encoding="utf-8"), "one {monitoring"),
    ],
)
def test_bad_release_logs_are_named_errors(tmp_path, edit, message):
    write_run(tmp_path)
    edit(tmp_path)
    with pytest.raises(ReleaseLogError, match=message):
        read_release_run(tmp_path)


def test_unknown_mention_topics_are_an_error(tmp_path):
    run = read_release_run(write_run(tmp_path))
    with pytest.raises(ReleaseLogError, match="Budget"):
        release_run_metrics(run, mentions={"Budget": [1]})


# ---------------------------------------------------------------------- round trip: v2 episodes, the release's script
CASES = ("flagship", "francis", "hmo", "ias", "river", "williams")
MEDIATORS = ("none", "blind", "generic", "social")
MODES = ("accommodating", "avoiding", "general", "competing")


def _play_v2(sc, mediator: str, mode: str):
    env = NegotiationEnvV2(scenario=sc, conflict_mode=mode, **({"opening": "party"} if mediator == "none" else {}))
    policy = make_mediator(mediator)
    env.reset(seed=0)
    policy.reset(0)
    while env.agents:
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else policy.act(obs, info))
    return env, info["episode"]


def _line_event(events, prompt: str) -> dict:
    """The event of the release line quoted in a prompt (``🔄 Turn {i+1}: ...``)."""
    return events[int(_speech(prompt).split("Turn ")[1].split(":")[0]) - 1]


@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PROMEDIATE_RELEASE to a clone of microsoft/ProMediate-Eval")
@pytest.mark.parametrize("case", CASES)
def test_v2_episodes_score_as_the_release_script_scores_their_logs(case, tmp_path):
    """Round trip: a v2 episode on each released case (every scripted mediator, every conflict mode) written as the
    release's conversation.txt + agreement_scores.json, scored by the release's own scripts/evaluation.py (its
    GPT-4.1 questions answered from the episode's events: a line mentions / addresses its topic), gives our
    episode's release-definition metrics. The release's series has an entry for the opening line; without it
    (our v2 series before issue 41) CC differs on some episode of every case."""
    sc = Scenario.from_promediate(Path(RELEASE) / "cases" / f"{case}.json")
    shifted = 0
    for mediator, mode in itertools.product(MEDIATORS, MODES):
        env, ep = _play_v2(sc, mediator, mode)
        events = ep["transcript"]
        assert events[0]["kind"] == "opening" and ep["metric_definitions"] == "release"

        def answer(p):
            e = _line_event(events, p)
            if "check if the current speech mentions this topic" in p:
                topic = p.split("negotiation about ")[1].split(". You need to check")[0]
                return "True" if e["topic"] == topic else "False"
            return e["topic"] if e["kind"] == "intervention" else "None"

        ns = release_evaluation(answer)
        topics = {t.name: [h[k] for h in env.tracker.topic_history] for k, t in enumerate(sc.topics)}
        folder = tmp_path / f"{mediator}_{mode}"
        conv = write_release_run(folder, topics, events, len(sc.parties))
        iy, per_step, latency, success, cc, freq, tle, _ = ns["main"](
            str(folder / "agreement_scores.json"), str(conv), "Social", case
        )
        scores = ns["process_scores"](json.loads((folder / "agreement_scores.json").read_text(encoding="utf-8")))
        where = f"{case} {mediator} {mode}"
        assert cc == pytest.approx(ep["cc"], abs=1e-12), where
        assert success == ep["success_rate"] and ns["evaluate_success_rate_max"](scores) == ep["success_rate_max"]
        assert (None if latency == -1 else latency) == pytest.approx(ep["rl_mean"], abs=1e-12), where
        assert (None if iy == -1 else iy) == pytest.approx(ep["me_mean"], abs=1e-12), where
        assert [None if v == -1 else v for v in per_step] == pytest.approx(
            [iv["me"] for iv in ep["interventions"]], abs=1e-12
        ), where
        assert tle == pytest.approx(ep["tle_mean"], abs=1e-12), where
        if mediator == "none":  # the release subtracts the opening as a mediator line even when a party said it
            assert freq == -1 / len(events) and ep["mediator_frequency"] == 0.0
        else:
            assert freq == pytest.approx(ep["mediator_frequency"], abs=1e-12), where
        shifted += abs(release_consensus_change(env.tracker.history) - ep["cc"]) > 1e-9
    assert shifted >= 1
