"""PersuasiveToM's two protocols, trivial baselines, honest tables, Fig. 3 stages and what a policy sees.

Expected accuracies are computed here from the raw JSON files (never from our loader), so the
benchmark's numbers are checked against the published format itself. With
``TOM_ENVS_PERSUASION_RELEASE`` (a clone of github.com/Yu-Fangxu/PersuasiveToM) the same is checked
on the release: the authors' scoring of an always-"A" answerer is 50.834 / 24.106 / 24.841 / 49.976.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
from pathlib import Path

import pytest

from benchmarks.persuasion import benchmark as bench
from benchmarks.persuasion.qa_answers import QA_ENV, answer_dialogues
from benchmarks.persuasion.qa_scoring import QAOptions, qa_rows
from benchmarks.qa_llm import QuestionView, make_qa_env
from policies.base import BasePolicy
from policies.llm.parsing import parse_authors_cot_letter, parse_authors_letter, parse_letter
from policies.persuasion.qa_baselines import AlwaysFirst
from tom_envs.persuasion import QTYPES, SAMPLE_DATA_DIR
from tom_envs.persuasion.data import RELEASE_UNVERIFIED, RELEASE_VERIFIED
from tom_envs.persuasion.metrics import Answer, accuracy_table, stage_of, stage_table


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")
LETTERS = "ABCDEF"


def raw(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for path in sorted(folder.glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        for rec in records:
            if isinstance(rec["choices"], str):
                rec["choices"] = ast.literal_eval(rec["choices"])
        out[path.stem] = records
    return out


def first_option_rate(records: list[dict]) -> float:
    return 100.0 * sum(r["answerKey"] == "A" for r in records) / len(records)


def longest_or_keyword_rate(records: list[dict]) -> float:
    hits = 0
    for r in records:
        choices = r["choices"]
        if sorted(c.lower() for c in choices) == ["no", "yes"]:
            pick = "no" if re.search(r"\bnot\b", r["question"], re.I) else "yes"
            guess = [c.lower() for c in choices].index(pick)
        else:
            longest = max(len(c) for c in choices)
            guess = next(i for i, c in enumerate(choices) if len(c) == longest)
        hits += guess == LETTERS.index(r["answerKey"])
    return 100.0 * hits / len(records)


def json_rows(capsys, *argv: str) -> list[dict]:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args([*argv, "--format", "json"])) == 0
    return json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------- the two protocols
def test_authors_protocol_keeps_the_published_order_so_always_first_scores_the_share_of_A(capsys):
    rows = json_rows(
        capsys, "--policy", "always-first,longest-or-keyword", "--protocol", "authors", "--repetitions", "2"
    )
    data = raw(SAMPLE_DATA_DIR)
    for r in rows:
        records = data[r["qtype"]]
        rate = first_option_rate(records) if r["policy"] == "always-first" else longest_or_keyword_rate(records)
        assert r["protocol"] == "authors" and r["n"] == len(records)
        assert r["prompt_source"] is None and r["prompt_file"] is None  # these policies read no prompt
        assert r["accuracy"] == pytest.approx(rate) and r["accuracy_sd"] == 0.0, r


def test_our_protocol_reshuffles_so_always_first_lands_on_chance(capsys):
    rows = json_rows(capsys, "--policy", "always-first", "--repetitions", "200")
    for r in rows:
        assert r["protocol"] == "ours"
        assert abs(r["accuracy"] - r["chance"]) < max(2.5 * r["accuracy_ci"], 1.0), r


def test_every_row_says_which_columns_the_release_can_fill(capsys):
    rows = json_rows(capsys, "--policy", "random", "--repetitions", "1")
    assert [r["qtype"] for r in rows] == list(QTYPES)
    for r in rows:
        assert r["release_file"] == ("sample" if r["qtype"] in RELEASE_VERIFIED else "unverified")  # bundled sample
        assert r["partial"] is False
        assert (r["release_quirk"] is not None) == (r["qtype"] in ("desire_ee", "intent_ee", "judge_qa"))
        assert r["expected_accuracy"] == r["chance"]
    assert {r["qtype"]: r["repeated_options"] for r in rows if r["repeated_options"]} == {"intent_ee": 1}
    assert all(r["columns_not_in_data"] == [] for r in rows)
    rows = json_rows(capsys, "--policy", "random", "--repetitions", "2", "--qtypes", "judge_qa,desire_ee")
    assert all(r["columns_not_in_data"] == [q for q in QTYPES if q not in ("judge_qa", "desire_ee")] for r in rows)
    assert rows[0]["consistency_sd"] >= 0.0 and "consistency_sd" not in rows[1]
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(["--repetitions", "1", "--qtypes", "desire_ee,judge_qa"])) == 0
    table = capsys.readouterr().out
    assert "Table 5 columns filled: desire_ee, judge_qa; not in this data: desire_er, belief_er" in table
    assert "protocol ours:" in table and "sample standard deviation over 1 repetition" in table
    assert "quirk of the release, judge_qa: answerable from the question's wording alone" in table
    assert bench.run(parser.parse_args(["--repetitions", "1", "--protocol", "authors"])) == 0
    table = capsys.readouterr().out
    assert "desire_er*" in table and "the release lists these files but they were not verified here" in table
    assert all(q + "*" not in table for q in RELEASE_VERIFIED) and "protocol authors:" in table


def test_an_unknown_protocol_or_a_mismatched_llm_run_is_a_named_error():
    with pytest.raises(bench.PersuasionBenchmarkError, match="unknown protocol"):
        qa_rows(["random"], 1, 0, QAOptions(protocol="paper"))
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--protocol", "paper"])
    with pytest.raises(bench.PersuasionBenchmarkError, match="--authors-prompts applies to --protocol authors"):
        bench.run(parser.parse_args(["--authors-prompts", "x.py", "--repetitions", "1"]))


# ---------------------------------------------------------------------- what a policy sees
class Spy(BasePolicy):
    """Remembers every info and reward it is handed; answers the answer index an info names, if any."""

    def __init__(self):
        super().__init__()
        self.infos, self.rewards = [], []

    def act(self, observation, info):
        self.infos.append(info)
        return int(info.get("answer", 0)) % int(observation["n_choices"])

    def observe(self, observation, reward, terminated, truncated, info):
        self.infos.append(info)
        self.rewards.append(reward)


def test_the_benchmark_hands_a_policy_no_answer_and_no_feedback():
    spy = Spy()
    env = make_qa_env(QA_ENV)
    reps = answer_dialogues(env, spy, 1, 0)
    assert spy.infos and all(
        not {"answer", "answer_key", "correct", "chosen", "choice_order"} & set(i) for i in spy.infos
    )
    assert set(spy.rewards) == {0.0}
    # reading the (absent) previous answer is then the same as always answering the first option shown
    first = answer_dialogues(env, AlwaysFirst(), 1, 0)
    assert [a.correct for a in reps[0]] == [a.correct for a in first[0]]


def test_question_view_passes_the_description_of_the_question_shown():
    spy = Spy()
    view = QuestionView(spy)
    env = make_qa_env(QA_ENV)
    view.reset(0)
    obs, info = env.reset(seed=0, options={"episode": 0})
    for _ in range(5):
        view.act(obs, info)
        item = env.current_item
        assert spy.infos[-1]["turn"] == item.turn and spy.infos[-1]["qtype"] == item.qtype
        obs, reward, done, _, info = env.step(0)
        view.observe(obs, reward, done, False, info)


# ---------------------------------------------------------------------- parsing
@pytest.mark.parametrize(
    "reply, ours, authors",
    [
        ("A", 0, "A"),
        ("A.", 0, "A"),
        ("A. Yes", 0, "A"),
        ("(A)", 0, None),
        ("The answer is A", 0, None),
        ("**B**", 1, None),
        ("B) No", 1, None),
        ("C: Neutral", 2, "C"),
        (" B\nbecause", 1, "B"),
        ("A person wants", None, None),
        ("Answer", None, None),
        ("E", None, "E"),
        ("", None, None),
    ],
)
def test_reply_letters_in_both_protocols(reply, ours, authors):
    assert parse_letter(reply, "ABCD") == ours
    assert parse_authors_letter(reply) == authors


def test_the_authors_cot_rule():
    options = ["A. Yes", "B. No"]
    assert parse_authors_cot_letter("Mary insists. The answer is **B**.", options) == "B"
    assert parse_authors_cot_letter("the answer is A", options) == "A"
    # no phrase: the first word, if the reply mentions an option line
    assert parse_authors_cot_letter("A. Yes fits best", options) == "A"
    assert parse_authors_cot_letter("I pick A. Yes", options) is None
    assert parse_authors_cot_letter("Unclear", options) is None


# ---------------------------------------------------------------------- metrics by hand
def test_accuracy_sd_is_the_sample_standard_deviation_over_repetitions():
    reps = [[Answer("judge_qa", "0", c, 2)] for c in (True, False, True)]
    (row,) = accuracy_table(reps)
    assert row["accuracy"] == pytest.approx(200 / 3) and row["accuracy_sd"] == pytest.approx((100 / 3) ** 0.5 * 10)


def test_stages_are_thirds_of_a_dialogue_s_question_turns():
    assert [stage_of(t, [0, 2, 4, 6]) for t in (0, 2, 4, 6)] == ["early", "early", "middle", "late"]
    six = [0, 2, 4, 6, 8, 10]
    assert [stage_of(t, six) for t in six] == ["early"] * 2 + ["middle"] * 2 + ["late"] * 2
    rep = [Answer("desire_ee", "0", c, 3, t) for c, t in ((True, 0), (False, 2), (False, 4))] + [
        Answer("desire_ee", "1", c, 3, t) for c, t in ((False, 0), (True, 2), (True, 4), (False, 6))
    ]
    rows = {r["stage"]: r for r in stage_table([rep])}
    assert rows["early"]["n"] == 3 and rows["early"]["accuracy"] == pytest.approx(200 / 3)
    # dialogue 0 (turns 0, 2, 4): early, middle, late; dialogue 1 (0, 2, 4, 6): early, early, middle, late
    assert rows["early"]["error_share"] == pytest.approx(25.0)  # 1 of the 4 errors: (1, 0)
    assert rows["middle"]["n"] == 2 and rows["middle"]["error_share"] == pytest.approx(25.0)  # (0, 2)
    assert rows["late"]["n"] == 2 and rows["late"]["accuracy"] == 0.0 and rows["late"]["error_share"] == 50.0


def test_stage_rows_reach_the_json_and_the_table(capsys):
    rows = json_rows(capsys, "--policy", "random", "--repetitions", "2", "--qtypes", "desire_ee")
    (row,) = rows
    assert [s["stage"] for s in row["stages"]] == ["early", "middle", "late"]
    assert sum(s["n"] for s in row["stages"]) == row["n"]
    assert sum(s["error_share"] for s in row["stages"]) == pytest.approx(100.0)
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(["--repetitions", "1", "--qtypes", "desire_ee", "--by-stage"])) == 0
    assert "001 Figure 3 layout" in capsys.readouterr().out


# ---------------------------------------------------------------------- the release
@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of the release")
def test_on_the_release_always_A_scores_the_authors_figures(capsys):
    data_dir = str(Path(RELEASE) / "data")
    rows = json_rows(
        capsys,
        "--data-dir",
        data_dir,
        "--policy",
        "always-first,longest-or-keyword",
        "--protocol",
        "authors",
        "--repetitions",
        "1",
    )
    got = {(r["policy"], r["qtype"]): round(r["accuracy"], 3) for r in rows}
    assert {q: got[("always-first", q)] for q in RELEASE_VERIFIED} == {
        "desire_ee": 50.834,
        "intent_ee": 24.106,
        "behavior_qa": 24.841,
        "judge_qa": 49.976,
    }
    assert got[("longest-or-keyword", "judge_qa")] == 99.706 and got[("longest-or-keyword", "intent_ee")] == 41.891
    data = raw(Path(data_dir))
    for q in RELEASE_VERIFIED:
        assert got[("always-first", q)] == round(first_option_rate(data[q]), 3)
    assert {r["qtype"]: r["repeated_options"] for r in rows if r["repeated_options"]} == {"intent_ee": 112}
    assert not any(r["release_file"] == "unverified" for r in rows) and set(RELEASE_UNVERIFIED).isdisjoint(got)


def test_the_spread_of_equal_repetitions_is_exactly_zero():
    """On the release, always-first scores 24.106 % on intent_ee in every repetition; its ± must be 0.0,
    not the 4e-15 that summing float deviations left."""
    from tom_envs.persuasion.metrics import sample_sd

    assert sample_sd([100 * 492 / 2041] * 3) == 0.0 and sample_sd([1.0, 2.0, 3.0]) == 1.0
    assert sample_sd([7.5]) == 0.0 and sample_sd([]) is None
