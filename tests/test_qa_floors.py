"""Floors and breakdowns of the QA families (issue 29): the question-only Common-ToM policy, precision /
recall / F1 as the release's ``src/core/evaluate.py`` computes them, accuracy per gold-label combination,
and 001's full Table 5/6 rows printed beside ours."""

from __future__ import annotations

import json
import os
import re

import pytest

from benchmarks.common_ground import benchmark as cg_bench
from benchmarks.persuasion import benchmark as pers_bench
from benchmarks.persuasion.published import PUBLISHED, PUBLISHED_CONSISTENCY, PUBLISHED_FIGURE3, PUBLISHED_SPREAD
from policies.common_ground.scripted import QuestionOnlyPolicy
from tom_envs.common_ground import SAMPLE_DATA_DIR, read_questions
from tom_envs.common_ground.env import CERTAINTIES
from tom_envs.common_ground.metrics import UNPARSED, answer_scores, by_labels, f1_columns, prf
from tom_envs.errors import TomEnvsError
from tom_envs.persuasion import QTYPES

RELEASE = os.environ.get("TOM_ENVS_COMMON_TOM_RELEASE")


from tests.qa_helpers import command_args as _args
from tests.qa_helpers import results_in_tmp  # noqa: F401  (autouse: each test in its own folder)


# ---------------------------------------------------------------------- F1 as the release computes it
def test_prf_is_scikit_learn_s_per_label_macro_and_micro():
    # worked by hand with scikit-learn's definitions (labels: the sorted union of predictions and references)
    scores = prf(["Yes", "No", "No", "No", "Yes"], ["Yes", "Yes", "No", "No", "No"])
    assert scores["labels"] == ["No", "Yes"]
    assert scores["precision"]["Yes"] == scores["recall"]["Yes"] == scores["f1"]["Yes"] == 0.5
    assert scores["f1"]["No"] == pytest.approx(2 / 3)
    assert scores["f1"]["macro"] == pytest.approx((0.5 + 2 / 3) / 2)
    assert scores["f1"]["micro"] == scores["precision"]["micro"] == scores["recall"]["micro"] == pytest.approx(0.6)


def test_an_unparsed_reply_is_a_label_of_its_own_that_no_reference_has():
    scores = prf([UNPARSED, "No"], ["Yes", "No"])
    assert scores["labels"] == [UNPARSED, "No", "Yes"]
    assert scores["precision"]["Yes"] == 0.0 and scores["recall"]["Yes"] == 0.0  # zero_division -> 0
    assert scores["f1"]["macro"] == pytest.approx(1 / 3) and scores["f1"]["micro"] == 0.5


def test_records_without_their_gold_answer_have_no_f1():
    assert answer_scores([{"correct": True}]) is None
    assert f1_columns([{"correct": True}])["f1_macro"] is None
    cols = f1_columns(
        [
            {"answer": 1, "correct": True},
            {"answer": 0, "correct": False},
            {"answer": 1, "correct": False, "unparsed": True},
        ]
    )
    assert cols["precision_yes"] == 50.0 and cols["recall_yes"] == 50.0 and cols["recall_no"] == 0.0


def test_by_labels_groups_by_the_gold_labels_of_each_question():
    key = (4431, 2, 1.0, "A", "PS")
    rows = by_labels(
        [
            {"cid": 4431, "sno": 2, "eno": 1.0, "chain": "A", "belief_Q": "PS", "correct": True},
            {"cid": 4431, "sno": 9, "eno": 1.0, "chain": "A", "belief_Q": "PS", "correct": True},
        ],
        {key: ("CT+", "CT+", "JA", "JA")},
    )
    assert rows == [{"belief_A": "CT+", "belief_B": "CT+", "cg_A": "JA", "cg_B": "JA", "n": 1, "accuracy": 100.0}]


# ---------------------------------------------------------------------- the question-only floor
def test_the_question_only_policy_answers_each_certainty_s_majority():
    rows = read_questions(SAMPLE_DATA_DIR / "questions" / "4245_Magda_yn_questions.csv.gz")
    policy = QuestionOnlyPolicy.from_questions(rows)
    for i, certainty in enumerate(CERTAINTIES):
        mine = [r for r in rows if r.belief_Q == certainty]
        majority = 1 if 2 * sum(r.answer == "Yes" for r in mine) > len(mine) else 0
        assert policy.predict({"belief_Q": i}, {}) == majority == policy.act({"belief_Q": i}, {})
    with pytest.raises(TomEnvsError, match="one answer"):
        QuestionOnlyPolicy({"CT+": 0, "PS": 1})
    with pytest.raises(TomEnvsError, match="one answer"):
        QuestionOnlyPolicy({"CT+": 0, "PS": 2, "CT-": 0})


def test_the_command_lists_the_floor_with_f1_and_label_tables(capsys):
    argv = ["--policy", "random,question-only,oracle-beliefs", "--split", "test"]
    assert cg_bench.run(_args(cg_bench, *argv, "--format", "json")) == 0
    rows = json.loads(capsys.readouterr().out)
    floor = [r for r in rows if r["policy"] == "question-only"]
    assert [r["order"] for r in floor] == ["all", 1, 2, 3]
    oracle = next(r for r in rows if r["policy"] == "oracle-beliefs" and r["order"] == "all")
    assert oracle["f1_macro"] == oracle["f1_micro"] == 100.0 and oracle["precision_no"] == 100.0
    assert floor[0]["f1_micro"] == pytest.approx(floor[0]["accuracy"])  # one prediction per question
    assert sum(r["n"] for r in floor[0]["by_labels"]) == floor[0]["n"]
    assert cg_bench.run(_args(cg_bench, *argv, "--by-labels")) == 0
    out = capsys.readouterr().out
    assert "question-only" in out and "F1 mac" in out and "Accuracy by the speakers' gold labels" in out


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")  # the release's textless events (documented)
@pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_COMMON_TOM_RELEASE to the release's data/ folder")
def test_the_floor_on_the_release_test_split_is_59_6(capsys):
    assert cg_bench.run(_args(cg_bench, "--data-dir", RELEASE, "--policy", "question-only", "--format", "json")) == 0
    total = json.loads(capsys.readouterr().out)[0]
    assert total["n"] == 2104 and round(total["accuracy"], 1) == 59.6
    policy = cg_bench.make_policy(_args(cg_bench, "--data-dir", RELEASE), "question-only")
    assert policy.hyperparameters["answers"] == {"CT+": "No", "PS": "Yes", "CT-": "No"}


# ---------------------------------------------------------------------- 001's reference rows
def test_every_row_of_001_s_tables_5_and_6_is_data_and_printed(capsys):
    assert len(PUBLISHED) == 18 and len(PUBLISHED_CONSISTENCY) == 11
    assert all(list(v) == list(QTYPES) for v in PUBLISHED.values())
    assert PUBLISHED["GPT-4o + CoT"]["behavior_qa"] == 76.90 and PUBLISHED_SPREAD["GPT-4o + CoT"]["behavior_qa"] == 0.23
    assert PUBLISHED_SPREAD["Human"] is None and PUBLISHED_CONSISTENCY["InternLM2.5 + CoT"]["desire_ee"] == 6.57
    assert set(PUBLISHED_FIGURE3) == {"desire_er", "desire_ee"}
    assert pers_bench.run(_args(pers_bench, "--policy", "always-first", "--repetitions", "1", "--by-stage")) == 0
    out = capsys.readouterr().out
    for name in PUBLISHED:
        assert f"\n{name} " in out
    assert "001 Table 6" in out and "001 Figure 3, desire_ee" in out
    assert len(re.findall(r"^GPT-4o +\d", out, flags=re.M)) == 2  # its Table 5 and its Table 6 row


def test_every_table_shows_the_floor_and_it_equals_the_played_policy(capsys):
    assert cg_bench.run(_args(cg_bench, "--policy", "question-only", "--format", "json")) == 0
    played = {r["order"]: r for r in json.loads(capsys.readouterr().out)}
    assert cg_bench.run(_args(cg_bench, "--policy", "random")) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("question-only floor")]
    figures = " / ".join(f"{played[o]['accuracy']:.1f}" for o in ("all", 1, 2, 3))
    assert f": {figures} %" in line and f"n = {played['all']['n']}" in line
