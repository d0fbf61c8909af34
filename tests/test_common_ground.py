"""Common-ToM (seed 003, issue 6): answer rules, question generation, loaders, env, baselines, CLI."""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tom_envs
from benchmarks.common_ground import benchmark as bench
from policies.common_ground.scripted import (
    CueBeliefPredictor,
    PriorRandomPolicy,
    derive_common_ground,
    oracle_beliefs,
    predicted_beliefs,
)
from tom_envs.common_ground import SAMPLE_DATA_DIR, read_corpus, read_questions
from tom_envs.common_ground.corpus import MARKER, QUESTION_COLUMNS
from tom_envs.common_ground.env import CERTAINTIES, CHAIN_NAMES, CommonToMEnv, cut_context, make_item
from tom_envs.common_ground.metrics import accuracy_rows, consistency, order_correlation, pearson
from tom_envs.common_ground.questions import (
    all_questions,
    event_states,
    export_questions,
    generate_questions,
    parse_question,
    question_text,
    resolve,
    speech_act_events,
    time_points,
)
from tom_envs.errors import DatasetError, EpisodeEnded, InvalidAction, ResetNeeded, TomEnvsError


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


HEADER = ["Sentence", "Eno.", "Event", "Bel(A)", "Bel(B)", "CG(A)", "CG(B)", "Notes"]

# A six-sentence conversation of ours; the expectations below are worked out by hand from the rules.
MINI = [
    ["A: Did the shop really close?", "1.1", "A asks the shop closed", "", "", "", "", ""],
    ["", "1.2", "the shop closed", "NB 1.2", "CT+ 1.2", "", "", ""],
    ["B: Yes, last week.", "2.1", "the shop closed last week", "CT+ 1.2", "CT+ 2.1", "JA 1.2", "JA 1.2", ""],
    ["A: That is sad, I liked it.", "3.1", "A liked the shop", "CT+ 3.1,CT+ 2.1", "PS 3.1", "JA 2.1", "", ""],
    ["", "3.2", "A thinks the shop was nice", "CT+ 3.2", "CT+ 3.2", "", "", "not a speech act"],
    ["", "3.3", "the shop was nice", "PS 3.3", "None", "", "", ""],
    [
        "B: The owner said that it was haunted.",
        "4.1",
        "B said that the shop was haunted",
        "",
        "CT- 3.3",
        "",
        "RT 3.3",
        "",
    ],
    ["", "4.2", "the shop was haunted", "CT- 4.2", "PS 4.2", "RT 4.2", "", ""],
    ["A: Ha, no way.", "5", "", "5", "CT+ 4.2", "", "", "bare number"],
    ["B: Really, ask anyone.", "6.1", "anyone can confirm the story", "CT- 6.1", "CT+ 6.1,PS 4.2", "", "", ""],
]
# (sentence, event) -> (belief_A, belief_B, cg_A, cg_B) at every time point of the mini corpus
MINI_POINTS = {
    (2, 1.2): ("CT+", "CT+", "JA", "JA"),
    (3, 2.1): ("CT+", "CT+", "JA", "NA"),
    (3, 3.1): ("CT+", "PS", "NA", "NA"),
    (3, 3.2): ("CT+", "CT+", "NA", "NA"),
    (4, 3.3): ("PS", "CT-", "NA", "RT"),
    (4, 4.2): ("CT-", "PS", "RT", "NA"),
    (5, 4.2): ("CT-", "CT+", "RT", "NA"),
}


def write_tsv(path: Path, rows: list[list[str]], header: list[str] = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join("\t".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def mini(tmp_path):
    return read_corpus(write_tsv(tmp_path / "cg" / "9001_Tester_mini.tsv", MINI))


# ---------------------------------------------------------------------- answer rules


# (order, chain, q, belief_A, belief_B, cg_A, cg_B, expected yes)
TRUTH_TABLE = [
    (1, "A", "CT+", "CT+", "NB", "NA", "NA", True),
    (1, "A", "PS", "CT+", "NB", "NA", "NA", True),  # certainly true implies possibly true
    (1, "A", "CT-", "CT+", "CT-", "NA", "NA", False),
    (1, "A", "CT+", "PS", "CT+", "JA", "JA", False),  # possibly does not imply certainly
    (1, "A", "PS", "PS", "NB", "NA", "NA", True),
    (1, "A", "CT-", "CT-", "CT+", "RT", "RT", True),
    (1, "A", "PS", "NB", "CT+", "NA", "NA", False),
    (1, "B", "CT+", "CT+", "PS", "JA", "JA", False),  # B's own belief decides
    (2, "AB", "CT+", "CT+", "NB", "JA", "NA", True),
    (2, "AB", "CT+", "CT+", "NB", "IN", "NA", True),
    (2, "AB", "CT+", "CT+", "CT+", "NA", "NA", False),  # not in A's common ground
    (2, "AB", "PS", "CT+", "NB", "JA", "JA", True),  # positive: the second speaker's belief is not read
    (2, "AB", "PS", "PS", "PS", "RT", "RT", False),
    (2, "AB", "CT-", "CT+", "CT-", "RT", "RT", True),  # negative: the second speaker's belief is read
    (2, "AB", "CT-", "CT-", "CT+", "RT", "RT", False),
    (2, "AB", "CT-", "CT-", "CT-", "NA", "NA", False),  # second order needs RT, not NA
    (2, "BA", "CT-", "CT-", "PS", "NA", "RT", True),
    (3, "ABA", "CT+", "CT+", "NB", "JA", "NA", True),
    (3, "ABA", "PS", "PS", "NB", "IN", "NA", True),
    (3, "ABA", "CT-", "CT-", "PS", "RT", "NA", True),
    (3, "ABA", "CT-", "CT-", "PS", "NA", "NA", True),  # third order accepts NA too
    (3, "ABA", "CT-", "CT-", "CT-", "JA", "JA", False),
    (3, "ABA", "CT-", "CT+", "CT-", "RT", "RT", False),  # negative: the first speaker's belief is read
    (3, "BAB", "CT-", "CT+", "CT-", "JA", "NA", True),
    (3, "BAB", "PS", "CT+", "CT+", "JA", "NA", False),
]


@pytest.mark.parametrize("order, chain, q, bel_a, bel_b, cg_a, cg_b, expected", TRUTH_TABLE)
def test_resolvers_match_the_hand_built_truth_table(order, chain, q, bel_a, bel_b, cg_a, cg_b, expected):
    assert resolve(order, q, tuple(chain), {"A": bel_a, "B": bel_b}, {"A": cg_a, "B": cg_b}) is expected


def test_question_text_follows_the_template_and_parses_back():
    text = question_text(("B", "A", "B"), "CT-", "the shop was nice")
    assert text == (
        f"At the time indicated by {MARKER}, is it the case that B believes that A believes that "
        "B believes it is certainly not true that the shop was nice?"
    )
    parsed = parse_question(text)
    assert (parsed.chain, parsed.certainty, parsed.event, parsed.order) == (
        ("B", "A", "B"),
        "CT-",
        "the shop was nice",
        3,
    )
    assert (
        question_text(("A",), "PS", "x")
        == f"At the time indicated by {MARKER}, is it the case that A believes it is possibly true that x?"
    )
    with pytest.raises(ValueError):
        parse_question("Is the sky blue?")


# ---------------------------------------------------------------------- generation


def test_speech_act_events_are_dropped_only_for_asks_jokes_and_said_that(mini):
    assert speech_act_events(mini) == {1.1, 4.1}  # "A thinks ..." (3.2) is kept


def test_annotations_accumulate_and_start_as_no_belief(mini):
    states = {(s.sno, s.eno): s.labels for ss in event_states(mini).values() for s in ss}
    assert states[(1, 3.1)] == ("NB", "NB", "NA", "NA")  # before its first annotation
    assert (2, 2.1) not in states  # only B has a belief yet
    assert states[(6, 2.1)] == ("CT+", "CT+", "JA", "NA")  # kept from sentence 3 on; B never got a CG label
    assert states[(4, 3.3)] == ("PS", "CT-", "NA", "RT")  # set on the row of a dropped event
    assert states[(6, 4.2)] == ("CT-", "PS", "RT", "NA")  # changed back on the last sentence


def test_time_points_rule():
    from tom_envs.common_ground.questions import EventState

    def st(sno, a, b):
        return EventState(sno, 1.1, a, b, "NA", "NA")

    states = [
        st(1, "NB", "NB"),
        st(2, "NB", "NB"),
        st(3, "PS", "CT+"),
        st(4, "CT+", "CT+"),
        st(5, "PS", "CT+"),
        st(6, "CT-", "CT+"),
    ]
    assert time_points(states, 1, 6) == [3, 4]  # first pair at the first sentence, change at the last: both dropped
    assert time_points([st(1, "CT+", "CT+")], 1, 6) == []


def test_generation_from_a_small_corpus_gives_the_expected_questions(mini):
    rows = all_questions(mini)
    assert len(rows) == 18 * len(MINI_POINTS)
    got = {}
    for r in rows:
        got.setdefault((r.sno, r.eno), set()).add((r.belief_A, r.belief_B, r.cg_A, r.cg_B))
    assert got == {k: {v} for k, v in MINI_POINTS.items()}
    assert [(r.sno, r.eno) for r in rows] == sorted((r.sno, r.eno) for r in rows)
    at = [r for r in rows if (r.sno, r.eno) == (4, 3.3)]
    yes = {(r.order, "".join(parse_question(r.question).chain), r.belief_Q) for r in at if r.answer == "Yes"}
    assert yes == {(1, "A", "PS"), (1, "B", "CT-"), (3, "BAB", "CT-")}
    at = [r for r in rows if (r.sno, r.eno) == (4, 4.2)]
    yes = {(r.order, "".join(parse_question(r.question).chain), r.belief_Q) for r in at if r.answer == "Yes"}
    assert yes == {(1, "A", "CT-"), (1, "B", "PS"), (3, "ABA", "CT-")}
    assert sorted((r.order, parse_question(r.question).chain) for r in at) == sorted(
        (o, c)
        for o, c in [
            (1, ("A",)),
            (1, ("B",)),
            (2, ("A", "B")),
            (2, ("B", "A")),
            (3, ("A", "B", "A")),
            (3, ("B", "A", "B")),
        ]
        for _ in range(3)
    )
    first = at[0]
    assert first.context.split("\n")[3] == f"B: The owner said that it was haunted. {MARKER}"
    assert (first.cid, first.annotator, first.context_type) == (9001, "Tester", "end")


def test_uninformative_groups_are_downsampled_with_a_seed(mini):
    full = all_questions(mini)
    kept = generate_questions(mini)
    group = [r for r in kept if (r.belief_A, r.belief_B, r.cg_A, r.cg_B) == ("CT+", "CT+", "JA", "JA")]
    assert len(group) == 2  # round(0.1 * 18)
    assert len(kept) == len(full) - 16
    assert generate_questions(mini) == kept
    # the generator writes the label groups in sorted order (as the release does); the rows are all_questions'
    assert sorted(generate_questions(mini, keep_fraction=1.0), key=_row_key) == sorted(full, key=_row_key)
    assert [r.labels for r in generate_questions(mini, keep_fraction=1.0)] == sorted(r.labels for r in full)


def _row_key(row):
    return (row.sno, row.eno, row.order, row.question)


def test_bundled_question_files_are_what_the_generator_makes_of_the_bundled_corpus(tmp_path):
    for path in export_questions(None, tmp_path):
        assert path.read_bytes() == (SAMPLE_DATA_DIR / "questions" / path.name).read_bytes()
    assert {p.name for p in (SAMPLE_DATA_DIR / "questions").iterdir()} == {
        "4245_Magda_yn_questions.csv.gz",
        "4431_Magda_yn_questions.csv.gz",
    }


# ---------------------------------------------------------------------- loaders


@pytest.mark.parametrize(
    "row, where, fragment",
    [
        (["A: Hi.", "1.1", "hello", "XX 1.1", "", "", "", ""], "line 2", "not a belief label"),
        (["A: Hi.", "1.1", "hello", "CT+1.1", "", "", "", ""], "line 2", "LABEL eno"),
        (["A: Hi.", "1.1", "hello", "JA 1.1", "", "", "", ""], "line 2", r"column Bel\(A\)"),
        (["A: Hi.", "one", "hello", "", "", "", "", ""], "line 2", r"Eno\."),
        (["Hi there.", "1.1", "hello", "", "", "", "", ""], "line 2", "speaker"),
        (["A: Hi.", "1.1", "hello", "CT+ 7.2", "", "", "", ""], "line 2", "event 7.2"),
    ],
)
def test_corpus_loader_rejects_malformed_rows_naming_file_and_row(tmp_path, row, where, fragment):
    path = write_tsv(tmp_path / "9001_T_x.tsv", [row])
    with pytest.raises(DatasetError, match=fragment) as err:
        read_corpus(path)
    assert str(path) in str(err.value) and where in str(err.value)


def test_corpus_loader_rejects_structural_problems(tmp_path):
    rows = [["A: Hi.", "2.1", "x", "", "", "", "", ""], ["B: Yo.", "1.1", "y", "", "", "", "", ""]]
    with pytest.raises(DatasetError, match="line 3.*conversation order"):
        read_corpus(write_tsv(tmp_path / "9001_T_a.tsv", rows))
    rows = [["A: Hi.", "1.1", "x", "", "", "", "", ""], ["", "2.1", "y", "", "", "", "", ""]]
    with pytest.raises(DatasetError, match="line 3.*empty Sentence"):
        read_corpus(write_tsv(tmp_path / "9001_T_b.tsv", rows))
    with pytest.raises(DatasetError, match="missing column"):
        read_corpus(write_tsv(tmp_path / "9001_T_c.tsv", [["A: Hi.", "1.1"]], header=["Sentence", "Eno."]))
    with pytest.raises(DatasetError, match="named"):
        read_corpus(write_tsv(tmp_path / "badname.tsv", [["A: Hi.", "1.1", "x", "", "", "", "", ""]]))


def _write_gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    return path


def _question_csv(**override) -> str:
    good = {
        "sno": "2",
        "eno": "1.2",
        "belief_A": "CT+",
        "belief_B": "CT+",
        "belief_Q": "PS",
        "cg_A": "JA",
        "cg_B": "JA",
        "order": "1",
        "question": "q?",
        "answer": "Yes",
        "context_type": "end",
        "cid": "9001",
        "annotator": "T",
        "context": f'"A: hi\nB: yo {MARKER}"',
    }
    good.update(override)
    return ",".join(QUESTION_COLUMNS) + "\n" + ",".join(good[c] for c in QUESTION_COLUMNS) + "\n"


def test_question_loader_reads_a_good_file_and_rejects_malformed_rows(tmp_path):
    rows = read_questions(_write_gz(tmp_path / "ok.csv.gz", _question_csv()))
    assert rows[0].answer == "Yes" and rows[0].order == 1 and rows[0].context.endswith(MARKER)
    for field, value, fragment in [
        ("answer", "Maybe", "answer"),
        ("order", "4", "order"),
        ("belief_Q", "NB", "belief_Q"),
        ("context", '"A: hi\nB: yo"', "context"),
        ("sno", "x", "sno"),
    ]:
        path = _write_gz(tmp_path / f"bad_{field}.csv.gz", _question_csv(**{field: value}))
        with pytest.raises(DatasetError, match=fragment) as err:
            read_questions(path)
        assert str(path) in str(err.value) and "line 3" in str(err.value)  # the context spans two lines
    not_gz = tmp_path / "plain.csv.gz"
    not_gz.write_text(_question_csv())
    with pytest.raises(DatasetError, match="gzip"):
        read_questions(not_gz)


# ---------------------------------------------------------------------- env


def test_env_passes_gymnasium_check_env_in_every_context_mode():
    for mode in ("online", "window", "full"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(CommonToMEnv(context=mode, split="all"), skip_render_check=True)


def test_env_defaults_to_the_bundled_test_conversation_and_steps_sentence_by_sentence():
    env = CommonToMEnv()
    assert env.cids == [4431] and env.action_space == gym.spaces.Discrete(2)
    obs, info = env.reset(seed=0)
    turns, rewards, done = [], [], False
    while not done:
        item = env.current_item
        assert obs["turn"] == item.turn and obs["question"] == item.question
        turns.append(item.turn)
        obs, reward, done, truncated, info = env.step(item.answer)
        rewards.append(reward)
        assert not truncated and (done or "correct" not in info)
    # answers and rewards come back when the conversation ends (feedback="episode", the default)
    assert rewards == [0.0] * (len(turns) - 1) + [float(len(turns))] and info["correct"]
    assert len(info["answers"]) == len(turns) and all(a["correct"] for a in info["answers"])
    assert turns == sorted(turns)
    released = read_questions(SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz")
    groups = {(r.sno, r.eno) for r in released}
    assert len(turns) == 18 * len(groups)  # every group with a scored question, whole (fillers)
    assert sum(a["scored"] for a in info["answers"]) == len(released)
    with pytest.raises(EpisodeEnded):
        env.step(0)


@pytest.mark.parametrize("feedback", ["episode", "step"])
def test_env_info_carries_labels_only_after_the_fact_and_the_observation_never(feedback):
    env = CommonToMEnv(split="train", feedback=feedback)
    obs, info = env.reset(seed=1)
    for key in ("order", "chain", "belief_Q", "cid", "sno", "eno"):
        assert key in info
    assert not {"answer", "answer_label", "belief_A", "belief_B", "cg_A", "cg_B", "next_labels"} & set(info)
    assert info["cid"] == 4245
    assert set(obs) == {
        "text",
        "context",
        "question",
        "background",
        "choices",
        "n_choices",
        "qtype",
        "turn",
        "action_mask",
        "chain",
        "belief_Q",
    }
    parsed = parse_question(obs["question"])
    assert CHAIN_NAMES[obs["chain"]] == ">".join(parsed.chain) == info["chain"]
    assert CERTAINTIES[obs["belief_Q"]] == parsed.certainty == info["belief_Q"]
    assert "belief_A" not in obs["text"] and obs["choices"] == ("No", "Yes")
    done = False
    while not done:
        _, _, done, _, step_info = env.step(0)  # the step's info describes the question just answered
        for key in ("order", "chain", "belief_Q", "cid", "sno", "eno"):
            assert key in step_info
        assert not {"belief_A", "belief_B", "cg_A", "cg_B"} & set(step_info)  # later questions share them
        if feedback == "step" or done:  # the answer after the fact: with each step, or when the conversation ends
            assert step_info["answer"] == (1 if step_info["answer_label"] == "Yes" else 0)
        else:
            assert not {"answer", "answer_label", "correct"} & set(step_info)
    assert feedback == "step" or all(a["answer"] == (a["answer_label"] == "Yes") for a in step_info["answers"])


def test_expose_labels_returns_the_gold_labels_of_the_question_shown():
    env = CommonToMEnv(split="train", expose_labels=True)
    obs, info = env.reset(seed=1)
    item = env.current_item
    assert set(info["next_labels"]) == {"answer", "belief_A", "belief_B", "cg_A", "cg_B"}
    assert info["next_labels"]["answer"] == item.answer and info["next_labels"]["cg_A"] == item.labels["cg_A"]
    _, _, _, _, info = env.step(0)
    assert info["next_labels"]["belief_A"] == env.current_item.labels["belief_A"]


def test_context_modes_cut_the_released_context():
    full = "\n".join(f"A: s{i}" + (f" {MARKER}" if i == 8 else "") for i in range(1, 21))
    assert cut_context(full, "online").split("\n")[-1] == f"A: s8 {MARKER}"
    assert len(cut_context(full, "online").split("\n")) == 8
    assert cut_context(full, "window").split("\n") == [
        f"A: s{i}" + (f" {MARKER}" if i == 8 else "") for i in range(3, 14)
    ]
    assert cut_context(full, "full") == full


def test_env_split_selection_and_misuse_errors():
    assert CommonToMEnv(split="all").cids == [4245, 4431]
    assert CommonToMEnv(split=[4245]).cids == [4245]
    with pytest.raises(DatasetError, match="split"):
        CommonToMEnv(split="dev")
    with pytest.raises(TomEnvsError, match="context"):
        CommonToMEnv(context="everything")
    env = CommonToMEnv()
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(2)
    with pytest.raises(TomEnvsError, match="cid"):
        env.reset(options={"cid": 1})


def test_env_from_corpus_matches_the_released_files():
    a, b = CommonToMEnv(split="all"), CommonToMEnv(split="all", from_corpus=True)
    assert [[(i.question, i.answer, i.turn) for i in ep] for ep in a.episodes] == [
        [(i.question, i.answer, i.turn) for i in ep] for ep in b.episodes
    ]


def _rollout(env, seed, steps=60):
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    out = [(obs["text"], info["sno"])]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        out.append((obs["text"], r, term, info["eno"], info["order"]))
        if term:
            obs, info = env.reset()
    return out


def test_same_seed_same_trajectory_and_pickle_round_trip():
    assert _rollout(CommonToMEnv(split="all"), 5) == _rollout(CommonToMEnv(split="all"), 5)
    env = CommonToMEnv(split="all")
    env.reset(seed=3)
    for a in (0, 1, 1):
        env.step(a)
    clone = pickle.loads(pickle.dumps(env))
    for a in (1, 0, 0, 1):
        s1, s2 = env.step(a), clone.step(a)
        assert s1[0]["text"] == s2[0]["text"] and s1[1:] == s2[1:]


REGISTRATION = dict(
    id="tom/CommonToM-v2",
    entry_point="tom_envs.common_ground.env:CommonToMEnv",
    family="common_ground",
    summary="Common-ToM yes/no belief questions (003), asked sentence by sentence",
    kwargs={"split": "test", "context": "online"},
    builtin=True,
)


def test_the_proposed_registration_makes_the_env_offline():
    added = "tom/CommonToM-v2" not in tom_envs.REGISTRY
    if added:
        tom_envs.register(**REGISTRATION)
    try:
        env = gym.make("tom/CommonToM-v2")
        obs, info = env.reset(seed=0)
        assert info["cid"] == 4431
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped, skip_render_check=True)
    finally:
        if added:
            from tom_envs.registration import unregister

            unregister("tom/CommonToM-v2")


# ---------------------------------------------------------------------- baselines and metrics


def _score(policy, env_kwargs=None, seed=0):
    env = CommonToMEnv(**(env_kwargs or {}))
    return bench.play(env, policy, seed)


def test_oracle_beliefs_score_100_percent():
    records = _score(oracle_beliefs(), {"split": "all", "expose_labels": True})
    assert accuracy_rows(records)[0]["accuracy"] == 100.0 and consistency(records) == 100.0


def test_oracle_without_exposed_labels_refuses_instead_of_guessing():
    env = CommonToMEnv()
    policy = oracle_beliefs()
    obs, info = env.reset(seed=0)
    with pytest.raises(TomEnvsError, match="expose_labels"):
        policy.act(obs, info)
    obs, _, _, _, info = env.step(0)
    with pytest.raises(TomEnvsError, match="expose_labels"):
        policy.act(obs, info)


def test_prior_random_is_near_chance():
    accs = [accuracy_rows(_score(PriorRandomPolicy(0.5), {"split": "all"}, seed=s))[0]["accuracy"] for s in range(10)]
    assert 45.0 <= float(np.mean(accs)) <= 55.0
    policy = PriorRandomPolicy.from_questions(
        read_questions(SAMPLE_DATA_DIR / "questions" / "4245_Magda_yn_questions.csv.gz")
    )
    assert 0.3 < policy.p_yes < 0.4
    policy.reset(1)
    first = policy.predict({}, {})
    assert policy.act({}, {}) == first  # act answers what predict announced


def test_predicted_beliefs_never_read_gold_labels():
    env = CommonToMEnv(split="all")
    policy = predicted_beliefs()
    obs, info = env.reset(seed=0)
    bare = {k: v for k, v in info.items() if k not in ("belief_A", "belief_B", "cg_A", "cg_B")}
    assert policy.act(obs, bare) == policy.act(obs, info)
    acc = accuracy_rows(_score(predicted_beliefs(), {"split": "all"}))[0]["accuracy"]
    assert 50.0 < acc < 100.0


def test_appendix_b_common_ground_heuristics():
    assert derive_common_ground("CT-", "CT+") == ("RT", "RT")
    assert derive_common_ground("CT-", "NB") == ("RT", "RT")  # rule 1 is listed first
    assert derive_common_ground("CT+", "CT+") == ("JA", "JA")
    assert derive_common_ground("PS", "CT+") == ("JA", "JA")
    assert derive_common_ground("NB", "PS") == ("NA", "NA")
    assert derive_common_ground("PS", "PS") == ("JA", "JA")


def test_cue_predictor_reads_questions_hedges_and_denials():
    ctx = f"A: Is the vase broken? {MARKER}"
    assert CueBeliefPredictor().predict_beliefs(ctx, "the vase is broken") == ("NB", "NB")
    ctx = f"A: Is the vase broken?\nB: No, it is fine. {MARKER}"
    assert CueBeliefPredictor().predict_beliefs(ctx, "the vase is broken") == ("CT-", "CT-")
    ctx = f"B: Maybe she comes on Friday. {MARKER}"
    assert CueBeliefPredictor().predict_beliefs(ctx, "she comes on Friday") == ("PS", "PS")


def test_consistency_and_order_correlation():
    def rec(eno, order, correct):
        return {"cid": 1, "sno": 1, "eno": eno, "order": order, "correct": correct}

    records = [
        rec(1.1, 1, True),
        rec(1.1, 2, True),
        rec(1.1, 3, True),
        rec(1.2, 1, False),
        rec(1.2, 2, False),
        rec(1.2, 3, True),
        rec(1.3, 1, True),
        rec(1.3, 2, True),
        rec(1.3, 3, False),
    ]
    assert consistency(records) == pytest.approx(100 / 3)
    assert order_correlation(records, 2) == pytest.approx(1.0)
    assert order_correlation(records, 3) == pytest.approx(-0.5)  # x = (1, 0, 1), y = (1, 1, 0)
    rows = accuracy_rows(records)
    assert [(r["order"], r["n"]) for r in rows] == [("all", 9), (1, 3), (2, 3), (3, 3)]
    assert rows[0]["accuracy"] == pytest.approx(600 / 9)
    assert pearson([1, 1], [0, 1]) is None


# ---------------------------------------------------------------------- benchmark CLI


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("policy", ["random", "oracle-beliefs", "predicted-beliefs"])
def test_cli_json_rows_have_the_documented_keys(capsys, policy):
    assert (
        bench.run(
            _args(
                "--data-dir",
                str(SAMPLE_DATA_DIR),
                "--policy",
                policy,
                "--split",
                "test",
                "--seed",
                "0",
                "--format",
                "json",
            )
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [r["order"] for r in rows] == ["all", 1, 2, 3]
    for r in rows:
        assert isinstance(r["n"], int) and 0.0 <= r["accuracy"] <= 100.0 and r["policy"] == policy
    assert rows[0]["n"] == sum(r["n"] for r in rows[1:])
    assert {"consistency", "r_first_second", "r_first_third"} <= set(rows[0])
    if policy == "oracle-beliefs":
        assert all(r["accuracy"] == 100.0 for r in rows)


def test_cli_table_and_export(capsys, tmp_path):
    assert bench.run(_args("--policy", "oracle-beliefs")) == 0
    out = capsys.readouterr().out
    assert "oracle-beliefs" in out and "100.0" in out and "003: Random Baseline" in out
    assert (
        bench.run(
            _args("--data-dir", str(SAMPLE_DATA_DIR), "--from-corpus", "--export", str(tmp_path), "--format", "json")
        )
        == 0
    )
    written = [Path(p) for p in json.loads(capsys.readouterr().out)["exported"]]
    assert sorted(p.name for p in written) == ["4245_Magda_yn_questions.csv.gz", "4431_Magda_yn_questions.csv.gz"]
    assert all(p.read_bytes() == (SAMPLE_DATA_DIR / "questions" / p.name).read_bytes() for p in written)
    assert bench.run(_args("--export", str(tmp_path))) == 2
    assert "--from-corpus" in capsys.readouterr().err
    assert bench.run(_args("--data-dir", str(tmp_path / "nowhere"))) == 2
    assert "no such folder" in capsys.readouterr().err


# ---------------------------------------------------------------------- fillers (issue 24) and strict flags


@pytest.mark.parametrize("flag", ["expose_labels", "from_corpus", "fillers"])
@pytest.mark.parametrize("value", ["false", "no", 0, 1, None])
def test_boolean_flags_take_a_bool_only(flag, value):
    from tom_envs.errors import InvalidFlag

    with pytest.raises(InvalidFlag, match=flag):
        CommonToMEnv(**{flag: value})
    with pytest.raises(InvalidFlag, match=flag):
        gym.make("tom/CommonToM-v2", **{flag: value})


def test_qa_env_flags_take_a_bool_only():
    from tom_envs.errors import InvalidFlag
    from tom_envs.qa import QAEnv, answered

    episodes = [
        [make_item(r) for r in read_questions(SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz")[:3]]
    ]
    for flag in ("expose_labels", "strict", "shuffle_choices"):
        with pytest.raises(InvalidFlag, match=flag):
            QAEnv(episodes, ["order_1", "order_2", "order_3"], **{flag: "false"})
    with pytest.raises(InvalidFlag, match="with_fillers"):
        answered([{"answers": []}], with_fillers="yes")
    assert CommonToMEnv(expose_labels=False).expose_labels is False


def _groups(env):
    """Per conversation: (sentence, event) -> [scored flags of its questions, in asking order]."""
    out = {}
    for cid, ep in zip(env.cids, env.episodes):
        for it in ep:
            out.setdefault((cid, it.turn, it.meta["eno"]), []).append(it.scored)
    return out


@pytest.mark.parametrize("from_corpus", [False, True])
def test_every_group_presents_18_questions_and_the_scored_ones_are_the_question_files(from_corpus):
    env = CommonToMEnv(split="all", from_corpus=from_corpus)
    groups = _groups(env)
    assert {len(flags) for flags in groups.values()} == {18}  # the count of a group tells nothing
    assert all(any(flags) for flags in groups.values())  # a group is asked because it has a scored question
    assert any(not all(flags) for flags in groups.values())  # the down-sampled groups are filled up
    key = lambda r: (r.cid, r.sno, r.eno, r.question, r.answer)  # noqa: E731
    released = sorted(
        key(r)
        for cid in env.cids
        for r in read_questions(SAMPLE_DATA_DIR / "questions" / f"{cid}_Magda_yn_questions.csv.gz")
    )
    scored = sorted(
        (int(it.episode_id), it.turn, it.meta["eno"], it.question, "Yes" if it.answer else "No")
        for ep in env.episodes
        for it in ep
        if it.scored
    )
    assert scored == released


def test_counting_carries_nothing_the_turn_sizes_and_positions_are_the_same_whatever_the_labels():
    """Per sentence, the number of questions is 18 x the groups asked, whatever their labels; within a
    sentence, a scored question's position is a seeded draw, the same for fillers and scored ones."""
    env = CommonToMEnv(split="all")
    positions = {True: [], False: []}
    for seed in range(20):
        for e, cid in enumerate(env.cids):
            env.reset(seed=seed, options={"cid": cid})
            order = env._episode
            start = 0
            for i, it in enumerate(order):
                if i and it.turn != order[i - 1].turn:
                    start = i
                size = sum(1 for o in order if o.turn == it.turn)
                assert size % 18 == 0
                positions[it.scored].append((i - start) / size)
    # the position within the turn has the same distribution for scored questions and fillers
    assert abs(np.mean(positions[True]) - np.mean(positions[False])) < 0.03


def test_which_questions_are_scored_comes_back_only_when_the_conversation_ends():
    from tom_envs.qa import answered

    for feedback in ("episode", "step"):
        env = CommonToMEnv(feedback=feedback)
        obs, info = env.reset(seed=2)
        assert "scored" not in info and "scored" not in obs
        infos, done = [], False
        while not done:
            obs, reward, done, _, info = env.step(env.current_answer)
            infos.append(info)
            if not done:
                assert "scored" not in info and "answers" not in info and "scored" not in info.get("shown", {})
        assert reward == (len(infos) if feedback == "episode" else 1.0)  # rewards count every question asked
        facts = answered(infos)
        assert len(answered(infos, with_fillers=True)) == len(infos) > len(facts)
        assert all(f["scored"] for f in facts) and len(facts) == sum(it.scored for it in env.episodes[0])
        assert env.tom_outcome() == {"accuracy": 100.0, "answered": len(facts), "correct": len(facts)}


def test_fillers_false_asks_the_scored_questions_alone_as_v1():
    env = CommonToMEnv(split="all", fillers=False)
    assert all(it.scored for ep in env.episodes for it in ep)
    assert [len(ep) for ep in env.episodes] == [
        len(read_questions(SAMPLE_DATA_DIR / "questions" / f"{cid}_Magda_yn_questions.csv.gz")) for cid in env.cids
    ]


def test_question_files_without_the_corpus_are_a_named_error(tmp_path):
    from tom_envs.common_ground.env import CorpusNeeded

    shutil_copy = __import__("shutil").copytree
    shutil_copy(SAMPLE_DATA_DIR / "questions", tmp_path / "questions")
    (tmp_path / "SAMPLE.md").write_bytes((SAMPLE_DATA_DIR / "SAMPLE.md").read_bytes())  # a part of our sample
    with pytest.raises(CorpusNeeded, match="fillers=False"):
        CommonToMEnv(data_dir=tmp_path)
    alone = CommonToMEnv(data_dir=tmp_path, fillers=False)
    assert len(alone.episodes[0]) == len(read_questions(tmp_path / "questions" / "4431_Magda_yn_questions.csv.gz"))


def test_a_released_question_the_corpus_does_not_generate_is_a_named_error(tmp_path):
    from tom_envs.common_ground.corpus import write_questions
    from tom_envs.common_ground.questions import QuestionsDisagreeWithCorpus

    shutil_copy = __import__("shutil").copytree
    shutil_copy(SAMPLE_DATA_DIR / "cg", tmp_path / "cg")
    (tmp_path / "SAMPLE.md").write_bytes((SAMPLE_DATA_DIR / "SAMPLE.md").read_bytes())  # a part of our sample
    rows = read_questions(SAMPLE_DATA_DIR / "questions" / "4431_Magda_yn_questions.csv.gz")
    # consistent in itself (the cross-checks of check_question_rows pass), but not the corpus's context
    changed = rows[4].model_copy(update={"context": rows[4].context.replace(MARKER, MARKER + " ", 1)})
    write_questions(rows[:4] + [changed] + rows[5:], tmp_path / "questions" / "4431_Magda_yn_questions.csv.gz")
    with pytest.raises(QuestionsDisagreeWithCorpus, match=r"row 6: differs .* in context"):
        CommonToMEnv(data_dir=tmp_path)


def test_the_counting_probe_sees_the_group_sizes_without_fillers_and_constant_sizes_with_them():
    """:mod:`tom_envs.common_ground.probe` on the sample: with fillers every group a counting agent sees has
    18 questions (v1's sequence, ``fillers=False``, has the release's 1-6-question groups), and no table on
    what the env returns beats the question-only one (the release figures are in docs/common_ground.md)."""
    from tom_envs.common_ground import probe

    data = probe.rows(CommonToMEnv(split="all"), repeats=2)
    assert {r["x"]["seq.group_size"] for r in data} == {18}
    assert {r["x"]["c.prev_group_size"] for r in data} <= {None, 18}
    v1 = probe.rows(CommonToMEnv(split="all", fillers=False), repeats=1)
    assert len({r["x"]["seq.group_size"] for r in v1}) > 1
    report = probe.report(data, splits=6)
    assert report["gain"] <= 0.02, report
