"""PersuasiveToM (seed 001): loader, sample data, QA env, Table 5/6 metrics, CLI, download."""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import pickle
import shutil
import threading
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from benchmarks.persuasion import benchmark as bench
from benchmarks.persuasion.qa_answers import answer_dialogues
from benchmarks.persuasion.qa_scoring import qa_rows
from policies.persuasion.scripted import RandomAnswerer
from tom_envs.errors import DatasetError, EpisodeEnded, InvalidAction, ResetNeeded
from tom_envs.persuasion import QTYPES, SAMPLE_DATA_DIR
from tom_envs.persuasion.data import ChoicesParseError, dialogues, load_dataset, parse_choices_text
from tom_envs.persuasion.download import DownloadError, download
from tom_envs.persuasion.metrics import Answer, accuracy_table, consistency_table, dialogue_consistency
from tom_envs.persuasion.qa_env import PersuasiveToMEnv, choice_counts
from tom_envs.registration import REGISTRY, register, unregister
from tests.persuasion_records import release_record, write_records


@pytest.fixture(autouse=True)
def _results_in_tmp(tmp_path, monkeypatch):
    """The commands store their records under --out (default results/ in the working directory): run each test
    in its own temporary folder, so nothing lands in the checkout and no stale record from another commit is read."""
    monkeypatch.chdir(tmp_path)


QA_ID = "tom/PersuasiveToM-v1"
#: 001's Random Guess row, in Table 5's column order (= QTYPES).
RANDOM_GUESS = dict(zip(QTYPES, (50.00, 25.00, 16.67, 33.33, 25.00, 25.00, 25.00, 50.00)))


@pytest.fixture(scope="module")
def qa_id():
    """The QA id, registered here unless the registry already has it."""
    mine = QA_ID not in REGISTRY
    if mine:
        register(QA_ID, "tom_envs.persuasion.qa_env:PersuasiveToMEnv", family="persuasion")
    yield QA_ID
    if mine:
        unregister(QA_ID)


@pytest.fixture
def data_copy(tmp_path) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(SAMPLE_DATA_DIR, dst)
    return dst


# ---------------------------------------------------------------------- sample data
def test_sample_has_all_eight_files_three_dialogues_and_three_turns_each():
    data = load_dataset()
    assert list(data) == list(QTYPES)
    grouped = dialogues(data)
    assert len(grouped) >= 3
    assert all(len(turns) >= 3 for turns in grouped.values())
    for qtype, questions in data.items():
        assert len({q.record.dialogue_key for q in questions}) >= 3, qtype


def test_sample_stores_choices_as_list_text_in_at_least_one_file():
    raw = [json.loads((SAMPLE_DATA_DIR / f"{q}.json").read_text(encoding="utf-8")) for q in QTYPES]
    assert any(isinstance(r["choices"], str) for recs in raw for r in recs)
    assert all(
        list(r) == ["dialogue_id", "dialogue", "question", "background", "choices", "answerKey"]
        for recs in raw
        for r in recs
    )


def test_sample_choice_counts_give_001s_random_guess_row():
    counts = choice_counts(PersuasiveToMEnv())
    for qtype, expected in RANDOM_GUESS.items():
        assert {round(100 / n, 2) for n in counts[qtype]} == {expected}, qtype


# ---------------------------------------------------------------------- textual choices
@pytest.mark.parametrize(
    "text, expected",
    [
        ("['Yes', 'No', 'Neutral']", ["Yes", "No", "Neutral"]),
        ('["a, b", "c"]', ["a, b", "c"]),
        ('[ \'it\\\'s\', "say \\"hi\\"" , ]', ["it's", 'say "hi"']),
        ("[]", []),
    ],
)
def test_textual_choices_are_read_without_eval(text, expected):
    assert parse_choices_text(text) == expected


@pytest.mark.parametrize("text", ["Yes, No", "[1, 2]", "['a', ['b']]", "['a' 'b']", "__import__('os')", "['open"])
def test_textual_choices_that_are_not_a_list_of_strings_are_rejected(text):
    with pytest.raises(ChoicesParseError):
        parse_choices_text(text)


# ---------------------------------------------------------------------- loader errors
def test_bad_json_names_the_file(tmp_path):
    write_records(tmp_path, "desire_ee", '[{"dialogue_id": ')
    with pytest.raises(DatasetError, match=r"desire_ee\.json: bad JSON"):
        load_dataset(tmp_path)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"question": None}, "question"),
        ({"answerKey": "D"}, "outside the 3 choices"),
        ({"answerKey": "Z"}, "one letter A-F"),
        ({"choices": ["Yes", 2]}, "list of strings"),
        ({"choices": "Yes or No"}, "not a list of strings"),
        ({"choices": []}, "empty"),
        ({"dialogue_id": "twelve"}, "<dialogue>-<turn>"),
    ],
)
def test_malformed_record_names_file_and_record_index(tmp_path, bad, message):
    rec = release_record(**bad)
    if bad.get("question", "") is None:
        del rec["question"]
    write_records(tmp_path, "desire_ee", [release_record(), rec])
    with pytest.raises(DatasetError, match="desire_ee.json: record 1") as err:
        load_dataset(tmp_path)
    assert message in str(err.value)


def test_missing_field_is_reported_as_missing(tmp_path):
    rec = release_record()
    del rec["background"]
    write_records(tmp_path, "judge_qa", [rec])
    with pytest.raises(DatasetError, match=r"judge_qa\.json: record 0 .*background: missing field"):
        load_dataset(tmp_path)


def test_a_folder_with_a_subset_of_the_files_loads(tmp_path):
    write_records(
        tmp_path, "desire_ee", [release_record(), release_record(dialogue_id="0-2", choices="['Yes', 'No', 'Neutral']")]
    )
    data = load_dataset(tmp_path)
    assert list(data) == ["desire_ee"] and data["desire_ee"][1].record.choices == ["Yes", "No", "Neutral"]


def test_asking_for_a_type_whose_file_is_missing_says_how_to_fetch_it(tmp_path):
    write_records(tmp_path, "desire_ee", [release_record()])
    with pytest.raises(DatasetError, match="`tom-envs data download persuasion --dest "):
        load_dataset(tmp_path, ["intent_ee"])
    with pytest.raises(DatasetError, match="belief_ee: listed in the release's tree but not verified") as err:
        load_dataset(tmp_path, ["belief_ee"])
    assert "Fetch" not in str(err.value)  # no download hint for a file we could not verify upstream
    with pytest.raises(DatasetError, match="folder not found"):
        load_dataset(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="none of the PersuasiveToM files"):
        load_dataset(tmp_path / "empty")
    with pytest.raises(DatasetError, match="unknown question types"):
        load_dataset(tmp_path, ["desire"])


# ---------------------------------------------------------------------- QA env
def test_qa_env_passes_gymnasium_check_env(qa_id):
    check_env(gym.make(qa_id).unwrapped, skip_render_check=False)


def test_default_data_is_the_bundled_sample_and_data_dir_reads_a_folder(data_copy):
    assert PersuasiveToMEnv().n_questions == PersuasiveToMEnv(data_dir=data_copy).n_questions == 90


def test_an_episode_is_one_dialogue_stepped_turn_by_turn_in_table5_order():
    env = PersuasiveToMEnv(shuffle_choices=False, feedback="step")
    obs, _ = env.reset(seed=0, options={"episode": 0})
    seen, done = [], False
    while not done:
        item = env.current_item  # the step info describes the question just answered
        assert obs["context"] in obs["text"] and obs["question"] in obs["text"]
        assert obs["role"] == (item.role == "persuadee") and QTYPES[obs["qtype"]] == item.qtype
        seen.append((item.turn, QTYPES.index(item.qtype)))
        obs, reward, done, truncated, info = env.step(item.answer)
        assert reward == 1.0 and info["correct"] and info["qtype"] == item.qtype and not truncated
    assert seen == sorted(seen) and {t for t, _ in seen} == {0, 2, 4, 6}
    assert len(seen) == 6 * 4 + 2 * 3
    with pytest.raises(EpisodeEnded):
        env.step(0)


def test_each_question_shows_only_the_dialogue_up_to_its_turn():
    env = PersuasiveToMEnv()
    obs, _ = env.reset(seed=1, options={"episode": 1})
    first_context = obs["context"]
    assert first_context.count("says:") == 2
    while env.current_item.turn == 0:
        obs, *_ = env.step(0)
    assert obs["context"].startswith(first_context) and obs["context"].count("says:") == 4


def test_wrong_answer_scores_zero_and_bad_actions_raise():
    env = PersuasiveToMEnv(feedback="step")
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=2)
    wrong = (env.current_answer + 1) % 2
    _, reward, _, _, step_info = env.step(wrong)
    assert reward == 0.0 and not step_info["correct"]
    for bad in (-1, 6, 1.0, "A", True):
        with pytest.raises(InvalidAction):
            env.step(bad)


@pytest.mark.parametrize("feedback", ["episode", "step"])
def test_answer_key_and_type_are_in_info_after_the_answer_never_in_the_observation(feedback):
    env = PersuasiveToMEnv(feedback=feedback)
    obs, info = env.reset(seed=3, options={"episode": 0})
    assert {"qtype", "dialogue_id"} <= set(info) and not {"answer", "answer_key", "choice_order"} & set(info)
    assert not {"answer", "answer_key"} & set(obs)
    keys, done = [], False
    while not done:
        item = env.current_item
        obs, _, done, _, info = env.step(0)  # the step's info describes the question just answered
        assert {"qtype", "dialogue_id"} <= set(info) and not {"answer", "answer_key"} & set(obs)
        if feedback == "step" or done:
            assert {"answer", "answer_key"} <= set(info) and info["answer_key"] == "ABCDEF"[item.answer]
        else:  # by default nothing after the fact comes back before the dialogue ends
            assert not {"answer", "answer_key", "correct"} & set(info)
        keys.append("ABCDEF"[item.answer])
    assert feedback == "step" or [a["answer_key"] for a in info["answers"]] == keys


def test_question_type_subset_and_dialogue_splits():
    env = PersuasiveToMEnv(qtypes=["desire_ee", "judge_qa"])
    assert {it.qtype for ep in env.episodes for it in ep} == {"desire_ee", "judge_qa"}
    dev = PersuasiveToMEnv(split="dev").episodes
    test = PersuasiveToMEnv(split="test").episodes
    assert [ep[0].episode_id for ep in dev] == ["0"] and [ep[0].episode_id for ep in test] == ["1", "2"]
    assert [ep[0].episode_id for ep in PersuasiveToMEnv(split=["2"]).episodes] == ["2"]
    with pytest.raises(DatasetError):
        PersuasiveToMEnv(split="validation")


def test_choice_shuffling_is_seeded_and_keeps_the_answer_right():
    env = PersuasiveToMEnv()
    orders = []
    for seed in (5, 5, 6):
        obs, info = env.reset(seed=seed, options={"episode": 0})
        for _ in range(3):
            obs, *_rest, info = env.step(0)
        orders.append(obs["choices"])
        item = env.current_item
        assert obs["choices"][env._order.index(item.answer)] == item.choices[item.answer]
    assert orders[0] == orders[1]
    intent_orders = {tuple(PersuasiveToMEnv().reset(seed=s, options={"episode": 0})[0]["choices"]) for s in range(8)}
    assert len(intent_orders) > 1


def test_same_seed_same_trajectory_and_pickle_round_trip():
    def run(env, seed):
        env.action_space.seed(seed)
        obs, info = env.reset(seed=seed)
        out = [info["dialogue_id"], obs["text"]]
        for _ in range(10):
            obs, r, term, _, info = env.step(int(env.action_space.sample()) % int(obs["n_choices"] or 1))
            out += [obs["text"], r, info["qtype"]]
        return out

    assert run(PersuasiveToMEnv(), 9) == run(PersuasiveToMEnv(), 9)
    env = PersuasiveToMEnv()
    env.reset(seed=4)
    env.step(0)
    clone = pickle.loads(pickle.dumps(env))
    for a in (1, 0, 1):
        a_env, a_clone = env.step(a), clone.step(a)
        assert a_env[0]["text"] == a_clone[0]["text"] and a_env[1:4] == a_clone[1:4]


# ---------------------------------------------------------------------- metrics (hand-checked)
def _answers(spec):
    return [Answer(q, d, bool(c), n) for q, d, c, n in spec]


def test_accuracy_table_by_hand():
    rep1 = _answers([("desire_ee", "0", 1, 3), ("desire_ee", "1", 0, 3), ("intent_er", "0", 1, 6)])
    rep2 = _answers([("desire_ee", "0", 1, 3), ("desire_ee", "1", 1, 3), ("intent_er", "0", 0, 6)])
    rows = {r["qtype"]: r for r in accuracy_table([rep1, rep2])}
    assert list(rows) == ["intent_er", "desire_ee"]  # Table 5 order
    assert rows["desire_ee"]["n"] == 2 and rows["desire_ee"]["accuracy"] == pytest.approx(75.0)
    # t(df=1) = 12.706, sd of (50, 100) = 35.355..., se = 25
    assert rows["desire_ee"]["accuracy_ci"] == pytest.approx(12.706 * 25.0)
    assert rows["intent_er"]["chance"] == pytest.approx(100 / 6)


def test_dialogue_consistency_counts_only_fully_correct_dialogues():
    ans = _answers(
        [
            ("belief_ee", "0", 1, 4),
            ("belief_ee", "0", 1, 4),
            ("belief_ee", "1", 1, 4),
            ("belief_ee", "1", 0, 4),
            ("belief_ee", "2", 1, 4),
            ("desire_ee", "0", 0, 3),
        ]
    )
    assert dialogue_consistency(ans, "belief_ee") == pytest.approx(200 / 3)
    assert dialogue_consistency(ans, "desire_ee") == 0.0
    assert dialogue_consistency(ans, "intent_ee") is None
    rows = consistency_table([ans, ans])
    assert [r["qtype"] for r in rows] == ["desire_ee", "belief_ee"] and rows[1]["consistency_ci"] == 0.0


def test_a_perfect_answerer_scores_100_everywhere():
    class Perfect(RandomAnswerer):
        def act(self, observation, info):
            return int(self._env.current_answer or 0)

    env = PersuasiveToMEnv()
    policy = Perfect()
    policy._env = env
    reps = answer_dialogues(env, policy, 2, 0)
    assert all(r["accuracy"] == 100.0 for r in accuracy_table(reps))
    assert all(r["consistency"] == 100.0 for r in consistency_table(reps))


# ---------------------------------------------------------------------- CLI
def _args(*argv):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_json_rows_have_qtype_n_accuracy(capsys, data_copy):
    assert bench.run(_args("--data-dir", str(data_copy), "--policy", "random", "--format", "json")) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["qtype"] for r in rows] == list(QTYPES)
    assert all({"qtype", "n", "accuracy", "accuracy_ci", "chance"} <= set(r) for r in rows)
    assert rows[0]["n"] == 12 and rows[-1]["n"] == 9


def test_random_policy_lands_on_one_over_the_number_of_choices():
    rows = qa_rows(["random"], repetitions=300, seed=0)
    for row in rows:
        assert row["chance"] == pytest.approx(RANDOM_GUESS[row["qtype"]], abs=0.01)
        assert abs(row["accuracy"] - row["chance"]) < max(2.5 * row["accuracy_ci"], 1.0), row


def test_cli_live_rows_and_table_output(capsys):
    assert bench.run(_args("--env", "live", "--policy", "random,oracle", "--episodes", "40", "--format", "json")) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["random", "oracle"] and rows[1]["regret"] == 0.0
    assert bench.run(_args("--env", "both", "--repetitions", "1", "--episodes", "5")) == 0
    out = capsys.readouterr().out
    assert "desire_ee" in out and "oracle" in out


def test_cli_rejects_unknown_policies():
    with pytest.raises(bench.PersuasionBenchmarkError):
        bench.run(_args("--policy", "gpt"))


# ---------------------------------------------------------------------- download (loopback only)
@pytest.fixture
def served(tmp_path):
    """A loopback HTTP server over a copy of the sample files (plus a broken one)."""
    root = tmp_path / "served"
    shutil.copytree(SAMPLE_DATA_DIR, root / "data")
    (root / "broken").mkdir()
    write_records(root / "broken", "desire_ee", [release_record(answerKey="F")])
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_download_fetches_and_validates_every_file(served, tmp_path):
    out = tmp_path / "got"
    paths = download(out, base_url=f"{served}/data")
    assert [p.name for p in paths] == [f"{q}.json" for q in QTYPES]
    assert PersuasiveToMEnv(data_dir=out).n_questions == PersuasiveToMEnv().n_questions


def test_download_cli_entry_point(served, tmp_path, capsys):
    from tom_envs.persuasion.download import main

    assert main(["--out", str(tmp_path / "cli"), "--base-url", f"{served}/data", "--types", "judge_qa"]) == 0
    assert (tmp_path / "cli" / "judge_qa.json").is_file()
    assert main(["--out", str(tmp_path / "x"), "--base-url", f"{served}/nowhere", "--types", "judge_qa"]) == 2
    err = capsys.readouterr().err
    assert "skipped judge_qa.json: missing upstream" in err and "error: nothing was fetched" in err
    assert not (tmp_path / "x").exists()


def test_download_reports_missing_and_malformed_files(served, tmp_path):
    with pytest.raises(DownloadError, match="404"):
        download(tmp_path / "a", ["desire_ee"], base_url=f"{served}/nowhere")
    with pytest.raises(DatasetError, match="record 0"):
        download(tmp_path / "b", ["desire_ee"], base_url=f"{served}/broken")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()  # no empty folder left behind


def test_numpy_integer_actions_are_accepted():
    env = PersuasiveToMEnv(feedback="step")
    env.reset(seed=0)
    assert env.step(np.int64(env.current_answer))[1] == 1.0
    env = PersuasiveToMEnv()
    env.reset(seed=0, options={"episode": 0})
    done = False
    while not done:
        _, reward, done, _, info = env.step(np.int64(env.current_answer))
    assert reward == len(info["answers"]) and all(a["correct"] for a in info["answers"])


def test_data_download_command_fetches_persuasion(served, tmp_path, capsys):
    from benchmarks.__main__ import main

    assert (
        main(
            [
                "data",
                "download",
                "persuasion",
                "--dest",
                str(tmp_path / "d"),
                "--base-url",
                f"{served}/data",
                "--types",
                "judge_qa,desire_ee",
            ]
        )
        == 0
    )
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["desire_ee.json", "judge_qa.json"]
    assert (
        main(
            [
                "data",
                "download",
                "persuasion",
                "--dest",
                str(tmp_path / "e"),
                "--base-url",
                f"{served}/broken",
                "--types",
                "desire_ee",
            ]
        )
        == 2
    )
    assert "desire_ee" in capsys.readouterr().err and not (tmp_path / "e" / "desire_ee.json").exists()
