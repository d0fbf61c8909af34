"""Common-ToM against the quirks of the authors' public release.

The tests on our sample reproduce each quirk in a temporary copy of the bundled corpus. The tests
marked ``release`` read the real release from the folder named by ``TOM_ENVS_COMMON_TOM_RELEASE``
(its ``data/`` folder, holding ``cg/`` and ``questions/``) and are skipped without it.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

from tom_envs.common_ground import SAMPLE_DATA_DIR, read_corpus, read_questions, scan
from tom_envs.common_ground.corpus import MISSING_EVENT_TEXT, annotator_name, pick_annotator
from tom_envs.errors import DatasetError

RELEASE = os.environ.get("TOM_ENVS_COMMON_TOM_RELEASE")
needs_release = pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_COMMON_TOM_RELEASE to the release's data/ folder")
SAMPLE_CORPUS = SAMPLE_DATA_DIR / "cg" / "4245_Magda_sample.tsv"


def _blank_event_text(text: str) -> tuple[str, str]:
    """The corpus with the Event cell of its first annotated event emptied, and that event's Eno."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines[1:], start=1):
        cells = line.split("\t")
        if cells[2].strip() and cells[3].strip():
            cells[2] = ""
            lines[i] = "\t".join(cells)
            return "".join(lines), cells[1]
    raise AssertionError("the sample has no annotated event")


def test_annotator_is_found_inside_the_file_name_as_the_release_does(tmp_path):
    (tmp_path / "cg").mkdir()
    shutil.copy(SAMPLE_CORPUS, tmp_path / "cg" / "4245_PlatinumMagdaFULL_230615.tsv")
    folder = scan(tmp_path)
    assert sorted(folder.corpus) == [(4245, "Magda")]
    assert pick_annotator(folder.corpus, 4245, "Magda").name == "4245_PlatinumMagdaFULL_230615.tsv"
    assert read_corpus(folder.corpus[(4245, "Magda")]).annotator == "Magda"
    assert (annotator_name("PlatinumMagda"), annotator_name("Tester")) == ("Magda", "Tester")


def test_an_annotated_event_without_text_is_kept_as_None_with_one_warning(tmp_path):
    text, eno = _blank_event_text(SAMPLE_CORPUS.read_text(encoding="utf-8"))
    path = tmp_path / "4245_Magda_x.tsv"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        conv = read_corpus(path)
    assert conv.events[float(eno)] == MISSING_EVENT_TEXT == "None"
    assert len(caught) == 1 and "no Event text" in str(caught[0].message)
    assert list(conv.events) == [row.eno for row in conv.rows if row.eno in conv.events]  # file order kept


def test_an_annotation_naming_an_event_with_no_row_is_still_an_error(tmp_path):
    lines = SAMPLE_CORPUS.read_text(encoding="utf-8").splitlines(keepends=True)
    cells = lines[1].split("\t")
    cells[3] = "CT+ 999.9"
    lines[1] = "\t".join(cells)
    path = tmp_path / "4245_Magda_x.tsv"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"line 2: 'CT\+ 999.9' names event 999.9, which has no row"):
        read_corpus(path)


@needs_release
def test_release_all_four_corpus_files_load_with_one_warning_each_for_textless_events():
    folder = scan(RELEASE)
    assert sorted(folder.corpus) == [(c, "Magda") for c in (4245, 4248, 4310, 4431)]
    warned = {}
    for key, path in sorted(folder.corpus.items()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            conv = read_corpus(path)
        warned[key[0]] = len(caught)
        assert conv.annotator == "Magda"
    assert warned == {4245: 0, 4248: 1, 4310: 1, 4431: 1}
    counts = {cid: len(read_questions(path)) for (cid, _), path in folder.questions.items()}
    assert counts == {4245: 949, 4248: 2030, 4310: 2291, 4431: 2104}
    assert Path(RELEASE).is_dir()


# ---------------------------------------------------------------------- question generation as released


def test_speech_act_rule_is_the_release_s_word_test():
    from tom_envs.common_ground.questions import _is_speech_act

    assert _is_speech_act("A asks they liked B", "they liked B")
    assert _is_speech_act("B jokes that it rained", "that it rained")  # the second word decides
    assert _is_speech_act("B said that it rained", "it rained")
    assert not _is_speech_act("A thinks it rained", "it rained")
    assert not _is_speech_act("A said it rained", "it rained")


def test_downsampling_draws_like_pandas_sample_with_the_same_seed():
    import numpy as np

    pd = pytest.importorskip("pandas")
    for n in (1, 7, 18, 95, 233):
        frame = pd.DataFrame({"i": range(n)})
        ours = np.random.RandomState(42).choice(n, size=round(0.1 * n), replace=False).tolist()
        assert frame.sample(frac=0.1, replace=False, random_state=42)["i"].tolist() == ours


def test_keep_fraction_outside_0_1_is_a_named_error(tmp_path):
    from tom_envs.common_ground.questions import InvalidKeepFraction, generate_questions

    conv = read_corpus(SAMPLE_CORPUS)
    for bad in (-0.1, 1.5):
        with pytest.raises(InvalidKeepFraction, match=r"keep_fraction must be in \[0, 1\]"):
            generate_questions(conv, keep_fraction=bad)


def test_states_with_one_speaker_missing_are_time_points_but_never_asked():
    from tom_envs.common_ground.questions import EventState, asked_states, event_states, time_points

    states = [
        EventState(1, 2.1, "NB", "NB", "NA", "NA"),
        EventState(2, 2.1, None, "CT+", None, "NA"),
        EventState(3, 2.1, "CT+", "CT+", "JA", "NA"),
        EventState(4, 2.1, "CT+", "CT+", "JA", "JA"),
    ]
    assert time_points(states, 1, 6) == [2, 3]  # the half-labelled sentence 2 counts as a change
    conv = read_corpus(SAMPLE_CORPUS)
    assert all(s.complete for s in asked_states(conv))
    assert all(s.complete for ss in event_states(conv).values() for s in ss)


@needs_release
def test_release_export_reproduces_the_four_released_question_files(tmp_path):
    import gzip

    from tom_envs.common_ground.questions import export_questions

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = export_questions(RELEASE, tmp_path)
    assert len(written) == 4
    for path in written:
        released = Path(RELEASE) / "questions" / path.name
        assert gzip.decompress(path.read_bytes()) == gzip.decompress(released.read_bytes()), path.name


# ---------------------------------------------------------------------- leak probes (issue 13)


def info_probe(env, seed: int, cid: int | None = None) -> tuple[float, float]:
    """Accuracy, and always-"No"'s on the same conversation, of a policy that answers from the gold labels any info has shown for the same event at
    the same sentence (through the answer rules), else "No"."""
    from tom_envs.common_ground.questions import parse_question, resolve

    obs, info = env.reset(seed=seed, options=None if cid is None else {"cid": cid})
    seen: dict[tuple, dict] = {}
    correct = total = no = 0
    while True:
        parsed = parse_question(obs["question"])
        key = (int(obs["turn"]), parsed.event)
        _remember(seen, key, info)
        labels = seen.get(key)
        action = 0
        if labels is not None and len(labels) == 4:
            action = int(
                resolve(
                    parsed.order,
                    parsed.certainty,
                    parsed.chain,
                    {"A": labels["belief_A"], "B": labels["belief_B"]},
                    {"A": labels["cg_A"], "B": labels["cg_B"]},
                )
            )
        no += int(env.unwrapped.current_answer == 0)
        obs, reward, terminated, _, info = env.step(action)
        _remember(seen, key, info)  # the info of a step describes the question just answered
        correct, total = correct + int(reward), total + 1
        if terminated:
            return correct / total, no / total


def _remember(seen: dict, key: tuple, info: dict) -> None:
    for source in (info, info.get("next_labels") or {}):
        found = {k: source[k] for k in ("belief_A", "belief_B", "cg_A", "cg_B") if k in source}
        if found:
            seen.setdefault(key, {}).update(found)


def order_probe(env, seed: int, cid: int | None = None, use_order: bool = True) -> tuple[float, float]:
    """Accuracy, and always-"No"'s on the same conversation, of a policy that takes an event whose first question at a sentence is not order 1 / A /
    CT- (the first row of a whole label group in the release) for the uninformative group
    (CT+, CT+, JA, JA) and answers it by the rules; any other event "No". ``use_order=False``: every
    event is taken for that group (the same answer rule without the order signal)."""
    from tom_envs.common_ground.questions import parse_question, resolve

    obs, _ = env.reset(seed=seed, options=None if cid is None else {"cid": cid})
    first: dict[tuple, bool] = {}
    correct = total = no = 0
    while True:
        item = env.unwrapped.current_item
        parsed = parse_question(obs["question"])
        key = (item.turn, item.meta["eno"])
        flagged = first.setdefault(
            key, (parsed.order, parsed.chain, parsed.certainty) != (1, ("A",), "CT-") or not use_order
        )
        action = int(
            flagged
            and resolve(parsed.order, parsed.certainty, parsed.chain, {"A": "CT+", "B": "CT+"}, {"A": "JA", "B": "JA"})
        )
        no += int(env.unwrapped.current_answer == 0)
        obs, reward, terminated, _, _ = env.step(action)
        correct, total = correct + int(reward), total + 1
        if terminated:
            return correct / total, no / total


def test_info_probe_scores_as_always_no_on_our_sample():
    from tom_envs.common_ground.env import CommonToMEnv

    env = CommonToMEnv(split="all", context="window")
    for cid in env.cids:
        for seed in range(3):
            probe, no = info_probe(env, seed, cid)
            assert probe == no


def test_with_exposed_labels_the_info_probe_is_perfect():
    from tom_envs.common_ground.env import CommonToMEnv

    probe, _ = info_probe(CommonToMEnv(split="test", expose_labels=True), 0)
    assert probe == 1.0


def _order_gain(env, cid: int, seeds: range) -> tuple[float, float]:
    """Mean accuracy gain of the order probe over the same answer rule without the order signal, and
    three standard errors of a proportion over the conversation's questions."""
    gains = [order_probe(env, s, cid)[0] - order_probe(env, s, cid, use_order=False)[0] for s in seeds]
    n = len(next(ep for ep in env.episodes if ep[0].meta["cid"] == cid))
    return sum(gains) / len(gains), 3 * (0.25 / n) ** 0.5


def test_question_order_within_a_sentence_tells_nothing_on_our_sample():
    from tom_envs.common_ground.env import CommonToMEnv

    env = CommonToMEnv(split="all")
    for cid in env.cids:
        gain, slack = _order_gain(env, cid, range(6))
        assert gain <= slack, (cid, gain)


def test_same_seed_same_question_order_and_another_seed_another():
    from tom_envs.common_ground.env import CommonToMEnv

    env = CommonToMEnv(split="test")

    def order(seed):
        env.reset(seed=seed)
        return [it.question for it in env.unwrapped._episode]

    assert order(3) == order(3) and order(3) != order(4)
    assert sorted(order(3)) == sorted(it.question for it in env.episodes[0])


@needs_release
def test_release_leak_probes_score_no_better_than_always_no():
    from tom_envs.common_ground.env import CommonToMEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = CommonToMEnv(data_dir=RELEASE, split="all")
    for cid in env.cids:
        probe, no = info_probe(env, 0, cid)
        assert probe <= no
        gain, slack = _order_gain(env, cid, range(4))
        assert gain <= slack, (cid, gain)


def always_no(env) -> float:
    rows = [it for ep in env.episodes for it in ep]
    return sum(it.answer == 0 for it in rows) / len(rows)


# ---------------------------------------------------------------------- counting (issue 24)


@needs_release
def test_release_every_scored_group_is_asked_whole_and_the_scored_questions_are_the_released_files():
    from tom_envs.common_ground.env import CommonToMEnv
    from tom_envs.common_ground.questions import parse_question
    from tom_envs.qa import answered

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = CommonToMEnv(data_dir=RELEASE, split="all")
    sizes = {}
    for ep in env.episodes:
        for it in ep:
            sizes[(it.episode_id, it.turn, it.meta["eno"])] = sizes.get((it.episode_id, it.turn, it.meta["eno"]), 0) + 1
    assert set(sizes.values()) == {18}
    folder = scan(RELEASE)
    rows = [r for cid in env.cids for r in read_questions(pick_annotator(folder.questions, cid, None))]
    assert len(rows) == 5270 + 2104  # Table 2: train 2,899 + 2,371, test 1,139 + 965
    released = sorted((r.cid, r.sno, r.eno, r.question, r.answer) for r in rows)
    asked = sorted(
        (int(it.episode_id), it.turn, it.meta["eno"], it.question, "Yes" if it.answer else "No")
        for ep in env.episodes
        for it in ep
        if it.scored
    )
    assert asked == released
    # what a scorer reads back from a played conversation: exactly its released questions
    by = lambda f: (f["cid"], f["sno"], f["eno"], f["order"], f["chain"], f["belief_Q"], f["answer_label"])  # noqa: E731
    for cid in env.cids:
        env.reset(seed=1, options={"cid": cid})
        infos, done = [], False
        while not done:
            *_, done, _, info = env.step(0)
            infos.append(info)
        mine = [r for r in rows if r.cid == cid]
        want = sorted(
            (r.cid, r.sno, r.eno, r.order, ">".join(parse_question(r.question).chain), r.belief_Q, r.answer)
            for r in mine
        )
        assert sorted(by(f) for f in answered(infos)) == want


@needs_release
def test_release_no_counting_probe_beats_the_question_only_probe_by_more_than_2_points():
    """The probe of :mod:`tom_envs.common_ground.probe` (everything returned, counts, positions, group
    and sentence sizes) against the same probe reading the question only, on the test split's scored
    questions, held-out sentences; v1's sequence (``fillers=False``) is the control it must catch."""
    from tom_envs.common_ground import probe
    from tom_envs.common_ground.env import CommonToMEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        after = probe.report(probe.rows(CommonToMEnv(data_dir=RELEASE, split="test"), repeats=4), splits=20)
        before = probe.report(
            probe.rows(CommonToMEnv(data_dir=RELEASE, split="test", fillers=False), repeats=4), splits=20
        )
    assert after["gain"] <= 0.02, after
    assert before["gain"] > 0.02, before  # the probe does see the counts when they carry labels


# ---------------------------------------------------------------------- the release's files, count and hash (issue 41)
def _release_copy(tmp_path: Path, keep: int | None = None) -> Path:
    """A copy of the release's ``data/`` (cg/ and questions/); ``keep``: the test file cut to its first rows."""
    from tom_envs.common_ground.corpus import write_questions

    root = tmp_path / "data"
    for sub in ("cg", "questions"):
        shutil.copytree(Path(RELEASE) / sub, root / sub)
    if keep is not None:
        path = root / "questions" / "4431_Magda_yn_questions.csv.gz"
        write_questions(read_questions(path)[:keep], path)
    return root


def _cg(*argv: str):
    """The command on ``argv``; results under ``--out`` (given, or a fresh scratch folder: never the checkout's)."""
    import tempfile

    from benchmarks.common_ground import benchmark as cg_bench
    from tests.qa_helpers import command_args

    if "--out" in argv:
        return cg_bench.run(command_args(cg_bench, *argv))
    with tempfile.TemporaryDirectory() as out:
        return cg_bench.run(command_args(cg_bench, *argv, "--out", out))


@pytest.mark.slow
@needs_release
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")  # the release's textless events (documented)
def test_every_file_of_the_release_has_the_table_s_count_and_hash():
    from tom_envs.common_ground.corpus import RELEASE_FILES
    from tom_envs.common_ground.env import load_checked_split
    from tom_envs.release_files import file_sha256

    assert load_checked_split(RELEASE, "all")[1] == []
    folder = scan(RELEASE)
    found = {f"questions/{p.name}": len(read_questions(p)) for p in folder.questions.values()}
    found.update({f"cg/{p.name}": len(read_corpus(p).rows) for p in folder.corpus.values()})
    assert {name: (n, file_sha256(Path(RELEASE) / name)) for name, n in found.items()} == {
        name: (f.records, f.sha256) for name, f in RELEASE_FILES.items()
    }


@pytest.mark.slow
@needs_release
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")
def test_a_test_file_cut_to_half_is_a_named_error_or_partial_rows(tmp_path, capsys):
    import json

    from tom_envs.common_ground.env import load_split
    from tom_envs.release_files import ReleaseMismatch

    cut = _release_copy(tmp_path, keep=1052)
    with pytest.raises(
        ReleaseMismatch,
        match=r"4431_Magda_yn_questions.csv.gz: not the release's .* \(1052 records "
        r"where the release has 2104; sha256 .*--allow-partial",
    ):
        load_split(cut, "test")
    argv = ("--data-dir", str(cut), "--policy", "question-only", "--format", "json", "--out", str(tmp_path / "res"))
    assert _cg(*argv) == 2
    assert "1052 records where the release has 2104" in capsys.readouterr().err
    assert _cg(*argv, "--allow-partial") == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert rows[0]["n"] == 1052 and all(r["partial"] is True for r in rows)
    assert "note: --allow-partial" in captured.err and "4431_Magda_yn_questions.csv.gz" in captured.err
    (stored,) = (tmp_path / "res" / "common_ground").glob("scripted_question_only_*.jsonl")
    assert all(json.loads(line)["partial"] is True for line in stored.read_text().splitlines())


@pytest.mark.slow
@needs_release
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")
def test_counts_of_a_cut_file_fail_or_say_partial(tmp_path, capsys):
    import json

    cut = _release_copy(tmp_path, keep=1052)
    assert _cg("--data-dir", str(cut), "--counts") == 2
    assert "1052 records where the release has 2104" in capsys.readouterr().err
    assert _cg("--data-dir", str(cut), "--counts", "--allow-partial", "--format", "json") == 0
    tables = json.loads(capsys.readouterr().out)
    assert tables["partial"] is True and len(tables["release_differences"]) == 1
    assert _cg("--data-dir", RELEASE, "--counts", "--format", "json") == 0
    tables = json.loads(capsys.readouterr().out)
    assert tables["partial"] is False
    assert {(r["split"], r["answer"]): r["count"] for r in tables["table2"]} == {
        ("train", "No"): 2899,
        ("train", "Yes"): 2371,
        ("test", "No"): 1139,
        ("test", "Yes"): 965,
    }


@pytest.mark.slow
@needs_release
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")
def test_a_partial_run_never_shares_results_with_the_whole_data_in_the_same_folder(tmp_path, capsys):
    """Cut in place, scored with --allow-partial, restored, scored again into the same --out in the same process:
    the whole data's figure is computed afresh (59.65 %), not read back from the partial run (the data's checksum
    is in the results key, and it is not remembered across edits)."""
    import json

    data = _release_copy(tmp_path)
    path = data / "questions" / "4431_Magda_yn_questions.csv.gz"
    whole = path.read_bytes()
    argv = ("--data-dir", str(data), "--policy", "question-only", "--format", "json", "--out", str(tmp_path / "res"))
    from tom_envs.common_ground.corpus import write_questions

    write_questions(read_questions(path)[:1052], path)
    assert _cg(*argv, "--allow-partial") == 0
    partial = json.loads(capsys.readouterr().out)[0]
    path.write_bytes(whole)
    assert _cg(*argv) == 0
    complete = json.loads(capsys.readouterr().out)[0]
    assert (partial["n"], partial["partial"]) == (1052, True)
    assert (complete["n"], complete["partial"], round(complete["accuracy"], 2)) == (2104, False, 59.65)
    assert len(list((tmp_path / "res" / "common_ground").glob("scripted_question_only_*.jsonl"))) == 2


@pytest.mark.slow
@needs_release
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")
def test_the_majority_class_floor_on_the_release_is_always_no_54_13(capsys):
    import json

    assert _cg("--data-dir", RELEASE, "--policy", "majority-class", "--format", "json") == 0
    total = json.loads(capsys.readouterr().out)[0]
    assert (total["n"], round(total["accuracy"], 2), total["partial"]) == (2104, 54.13, False)
    assert _cg("--data-dir", RELEASE, "--policy", "oracle-beliefs") == 0
    out = capsys.readouterr().out
    assert "majority-class floor (the training split's majority answer" in out and ": 54.1 / " in out
