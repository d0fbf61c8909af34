"""The lm-evaluation-harness export run by lm-eval itself (issue 31): the tasks
``tom-envs export lm-eval`` writes for the bundled samples are run by ``lm_eval.simple_evaluate``
with lm-eval's ``local-chat-completions`` model against the scripted loopback OpenAI-compatible
server (tests/llm/scripted_server.py), whose reply is a fixed function of the prompt; the suite's own
benchmark commands (``common-ground --policy llm-release``, ``persuasion --protocol authors --policy
llm``) are run against the same server, so both get the same reply to every question. Checked:

* the exported prompts are, item by item, the messages the suite sends;
* lm-eval sends exactly the exported messages (the system message through ``--apply_chat_template``);
* every score lm-eval reports equals the suite's row on the same replies (accuracy, F1, precision and
  recall, consistency, unread replies), and equals the suite's metric functions applied to lm-eval's
  logged replies;
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import zlib
from collections import Counter
from pathlib import Path

import pytest

lm_eval = pytest.importorskip("lm_eval", reason="the lm-eval extra (pip install 'tom-envs[lm-eval]')")

from benchmarks.common_ground import benchmark as cg_bench  # noqa: E402
from benchmarks.harnesses.lm_eval_export import ExportRequest, export  # noqa: E402
from benchmarks.persuasion import benchmark as pers_bench  # noqa: E402
from tests.llm.scripted_server import ScriptedServer  # noqa: E402

pytestmark = pytest.mark.slow

CG_GROUP, PT_GROUP = "tom_common_tom", "tom_persuasive_tom"
#: Replies the scripted model gives, picked by a hash of the prompt: read and unread alike.
CG_REPLIES = ("Yes", "No", "Yes.", " No ", "no", "Maybe", "Yes, B does.", "No.")
#: Every one is read by the authors' protocol (the release's rule or the lenient forms), so the suite
#: never samples again and both harnesses score the same one reply; "F" is beyond every question's options.
PT_REPLIES = ("A", "B.", "C", "(B)", "The answer is A", "F", "A. Yes", "B")


def scripted_reply(content: str, seed: object = None) -> str:
    """The scripted model: persuasion prompts end with the authors' answer cue, Common-ToM's with a question."""
    replies = PT_REPLIES if "Options:" in content or "\nA. " in content else CG_REPLIES
    return replies[zlib.crc32(content.encode("utf-8")) % len(replies)]


def _suite(bench, argv: list[str]) -> list[dict]:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert bench.run(parser.parse_args([*argv, "--format", "json"])) == 0
    return json.loads(out.getvalue())


def _docs(folder: Path, task: str) -> list[dict]:
    return [json.loads(line) for line in (folder / "data" / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The export, the suite's two runs and lm-eval's run, all on one scripted server."""
    from lm_eval.tasks import TaskManager

    tmp = tmp_path_factory.mktemp("lm_eval")
    manifest = export(ExportRequest(tmp / "tasks"))
    server = ScriptedServer(scripted_reply)
    try:
        llm = ["--backend", "openai", "--base-url", server.url, "--model", "scripted"]
        cg_rows = _suite(cg_bench, ["--policy", "llm-release", *llm, "--out", str(tmp / "cg")])
        cg_sent = list(server.requests)
        pt_rows = _suite(
            pers_bench,
            ["--policy", "llm", "--protocol", "authors", "--repetitions", "1", *llm, "--out", str(tmp / "pt")],
        )
        pt_sent = server.requests[len(cg_sent) :]
        before = len(server.requests)
        results = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args=f"base_url={server.url}/chat/completions,model=scripted,num_concurrent=1,max_retries=1",
            tasks=[CG_GROUP, f"{CG_GROUP}_all", PT_GROUP],
            task_manager=TaskManager(include_path=str(tmp / "tasks"), include_defaults=False),
            log_samples=True,
            apply_chat_template=True,
        )
        lm_sent = server.requests[before:]
    finally:
        server.close()
    return {
        "out": tmp / "tasks",
        "manifest": manifest,
        "cg_rows": cg_rows,
        "pt_rows": pt_rows,
        "cg_sent": cg_sent,
        "pt_sent": pt_sent,
        "lm_sent": lm_sent,
        "results": results,
    }


def _counts(runs: dict, family: str) -> dict[str, int]:
    """The exported tasks of ``family`` (by name suffix) and their questions, from the manifest."""
    (entry,) = [f for f in runs["manifest"]["families"] if f["family"] == family]
    return entry["counts"]


def _metric(results: dict, task: str, metric: str) -> float:
    return results["results"][task][f"{metric},none"]


# ---------------------------------------------------------------------- the prompts
def test_the_exported_common_tom_prompts_are_the_ones_the_suite_sends(runs):
    """Every scored question's prompt is one the suite sent for it; the suite's other requests are the
    fillers tom/CommonToM-v2 asks and never scores."""
    docs = _docs(runs["out"] / CG_GROUP, "all")
    sent = Counter(b["messages"][0]["content"] for b in runs["cg_sent"])
    assert all(len(b["messages"]) == 1 and b["messages"][0]["role"] == "user" for b in runs["cg_sent"])
    exported = Counter(d["prompt"] for d in docs)
    assert exported <= sent and len(docs) == runs["cg_rows"][0]["n"] == 191
    from tom_envs.common_ground.env import CommonToMEnv

    env = CommonToMEnv(split="test", context="window")
    fillers = sum(not it.scored for ep in env.episodes for it in ep)
    assert sum((sent - exported).values()) == fillers > 0
    assert [d["order"] for d in docs].count(1) == runs["cg_rows"][1]["n"]


def test_the_exported_persuasive_tom_messages_are_the_ones_the_suite_sends(runs):
    """Under --protocol authors every question is sent once as [system, user]: the export has the same pairs."""
    sent = Counter(
        (b["messages"][0]["role"], b["messages"][0]["content"], b["messages"][1]["content"]) for b in runs["pt_sent"]
    )
    folder = runs["out"] / PT_GROUP
    exported = Counter(
        ("system", d["system"], d["prompt"]) for q in _counts(runs, "persuasion") for d in _docs(folder, q)
    )
    assert exported == sent and sum(sent.values()) == 90


def test_lm_eval_sends_exactly_the_exported_messages(runs):
    """The group's tasks go out as the export says: Common-ToM one user message, PersuasiveToM the system
    message (the task's description, with --apply_chat_template) and the user message."""
    out = runs["out"]
    expected = Counter()
    for d in _docs(out / CG_GROUP, "all"):
        expected[(("user", d["prompt"]),)] += 2  # the group's order task and tom_common_tom_all
    for q in _counts(runs, "persuasion"):
        for d in _docs(out / PT_GROUP, q):
            expected[(("system", d["system"]), ("user", d["prompt"]))] += 1
    got = Counter(tuple((m["role"], m["content"]) for m in b["messages"]) for b in runs["lm_sent"])
    assert got == expected
    cg = [b for b in runs["lm_sent"] if len(b["messages"]) == 1]
    assert {b["temperature"] for b in cg} == {1.0} and all(b["stop"] == [] for b in runs["lm_sent"])
    pt = [b for b in runs["lm_sent"] if len(b["messages"]) == 2]
    assert {(b["temperature"], b["max_tokens"]) for b in pt} == {(0.7, 500)}


# ---------------------------------------------------------------------- the scores
def test_common_tom_scores_in_lm_eval_equal_the_suites_rows(runs):
    res, rows = runs["results"], {r["order"]: r for r in runs["cg_rows"]}
    total = rows["all"]
    assert 0 < total["accuracy"] < 100 and 0 < total["unparsed"] < total["n"]  # the replies are mixed
    assert _metric(res, CG_GROUP, "acc") == pytest.approx(total["accuracy"] / 100, abs=1e-12)
    assert _metric(res, f"{CG_GROUP}_all", "acc") == pytest.approx(total["accuracy"] / 100, abs=1e-12)
    for order in (1, 2, 3):
        assert _metric(res, f"{CG_GROUP}_order_{order}", "acc") == pytest.approx(
            rows[order]["accuracy"] / 100, abs=1e-12
        )
    for key in ("f1_macro", "f1_yes", "f1_no", "precision_yes", "precision_no", "recall_yes", "recall_no"):
        assert _metric(res, f"{CG_GROUP}_all", key) == pytest.approx(total[key] / 100, abs=1e-12), key
    assert _metric(res, f"{CG_GROUP}_all", "consistency") == pytest.approx(total["consistency"] / 100, abs=1e-12)
    assert _metric(res, f"{CG_GROUP}_all", "unparsed") * total["n"] == pytest.approx(total["unparsed"])


def test_persuasive_tom_scores_in_lm_eval_equal_the_suites_rows(runs):
    res = runs["results"]
    rows = {r["qtype"]: r for r in runs["pt_rows"]}
    assert len(rows) == 8 and 0 < sum(r["accuracy"] for r in rows.values()) < 800
    for qtype, row in rows.items():
        task = f"{PT_GROUP}_{qtype}"
        assert _metric(res, task, "acc") == pytest.approx(row["accuracy"] / 100, abs=1e-12), qtype
        assert _metric(res, task, "unparsed") == 0.0 and row["parse_failures"] == 0
        if "consistency" in row:
            assert _metric(res, task, "consistency") == pytest.approx(row["consistency"] / 100, abs=1e-12), qtype
        else:
            assert "consistency,none" not in res["results"][task]
    assert sum(row["invalid_answers"] for row in rows.values()) > 0  # letters beyond the options: wrong in both


def test_lm_evals_logged_replies_scored_by_the_suites_code_give_lm_evals_scores(runs):
    """lm-eval's logged samples' filtered replies, read and scored with the suite's functions directly."""
    from policies.common_ground.llm import parse_release_reply
    from policies.persuasion.qa_protocol import AuthorsProtocol
    from tom_envs.common_ground.metrics import accuracy_rows
    from tom_envs.persuasion.metrics import Answer, accuracy_table, consistency_table
    from tom_envs.persuasion.prompts import OUR_PROMPTS

    res = runs["results"]
    records = []
    for s in res["samples"][f"{CG_GROUP}_all"]:
        (reply,) = s["filtered_resps"]
        label, doc = parse_release_reply(reply), s["doc"]
        records.append(
            {
                **{k: doc[k] for k in ("cid", "sno", "eno", "order", "chain", "belief_Q")},
                "answer": int(doc["answer"] == "Yes"),
                "correct": label == doc["answer"],
                "unparsed": label is None,
            }
        )
    row = accuracy_rows(records)[0]
    assert _metric(res, f"{CG_GROUP}_all", "acc") == pytest.approx(row["accuracy"] / 100, abs=1e-12)
    assert _metric(res, f"{CG_GROUP}_all", "f1_macro") == pytest.approx(row["f1_macro"] / 100, abs=1e-12)
    protocol = AuthorsProtocol(OUR_PROMPTS)  # the sample has no release script next to it: our texts, as the suite
    for qtype in _counts(runs, "persuasion"):
        answers = []
        for s in res["samples"][f"{PT_GROUP}_{qtype}"]:
            doc = s["doc"]
            obs = {
                "context": doc["context"],
                "question": doc["question"],
                "n_choices": len(doc["choices"]),
                "choices": tuple(doc["choices"] + [""] * (6 - len(doc["choices"]))),
            }
            index, _ = protocol.ask(obs, "zero_shot", None).parse(s["filtered_resps"][0])
            answers.append(
                Answer(qtype, doc["dialogue"], index == doc["answer_index"], len(doc["choices"]), doc["turn"])
            )
        assert _metric(res, f"{PT_GROUP}_{qtype}", "acc") == pytest.approx(
            accuracy_table([answers])[0]["accuracy"] / 100, abs=1e-12
        )
        for c in consistency_table([answers]):
            assert _metric(res, f"{PT_GROUP}_{qtype}", "consistency") == pytest.approx(c["consistency"] / 100)


def test_the_tiny_hf_model_runs_the_exported_tasks_with_the_chat_layout(runs, tmp_path_factory):
    """lm-eval's ``hf`` model on the tests' tiny random Llama (CPU), two questions per task: the prompt it
    generates from is the tokenizer's chat template over the exported messages, and its scores are the
    suite's code on its logged replies. lm-eval's ``hf`` model needs ``accelerate`` (``lm-eval[hf]``)."""
    pytest.importorskip("accelerate", reason="lm-eval's hf model needs accelerate (pip install 'lm-eval[hf]')")
    from lm_eval.tasks import TaskManager
    from transformers import AutoTokenizer

    from benchmarks.harnesses.lm_eval_family import adapter_of
    from tests.llm.tiny_model import build_tiny_llama

    model = build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))
    tasks = [f"{CG_GROUP}_order_3", f"{PT_GROUP}_intent_ee"]
    res = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={model},device=cpu,dtype=float32",
        tasks=tasks,
        limit=2,
        task_manager=TaskManager(include_path=str(runs["out"]), include_defaults=False),
        log_samples=True,
        apply_chat_template=True,
        gen_kwargs="max_gen_toks=6",
    )
    tokenizer = AutoTokenizer.from_pretrained(model)
    for task, family, group in zip(tasks, ("common_ground", "persuasion"), (CG_GROUP, PT_GROUP)):
        scoring = json.loads((runs["out"] / group / "scoring.json").read_text(encoding="utf-8"))
        scorer = adapter_of(family).scorer(scoring)
        samples = res["samples"][task]
        assert len(samples) == 2
        for s in samples:
            doc = s["doc"]
            messages = ([{"role": "system", "content": doc["system"]}] if "system" in doc else []) + [
                {"role": "user", "content": doc["prompt"]}
            ]
            ((context, _gen_kwargs),) = s["arguments"]
            assert context == tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        accs = [scorer.score(s["doc"], s["filtered_resps"][0])["acc"] for s in samples]
        assert _metric(res, task, "acc") == pytest.approx(sum(accs) / len(accs))


def test_the_cot_tasks_read_replies_as_the_suites_cot_protocol(tmp_path):
    """--qa-mode cot: the CoT layout and the word after "The answer is" (then the lenient forms), in both."""
    from lm_eval.tasks import TaskManager

    from benchmarks.harnesses.lm_eval_family import Source

    manifest = export(ExportRequest(tmp_path / "tasks", ("persuasion",), Source(qa_mode="cot")))
    counts = _counts({"manifest": manifest}, "persuasion")
    cot = ("The answer is B.", "Let me think. The answer is A", "C", "The answer is F")

    def reply(content: str, seed: object = None) -> str:
        return cot[zlib.crc32(content.encode("utf-8")) % len(cot)]

    server = ScriptedServer(reply)
    try:
        rows = _suite(
            pers_bench,
            [
                "--policy",
                "llm",
                "--protocol",
                "authors",
                "--qa-mode",
                "cot",
                "--repetitions",
                "1",
                "--backend",
                "openai",
                "--base-url",
                server.url,
                "--model",
                "scripted",
                "--out",
                str(tmp_path / "pt"),
            ],
        )
        res = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args=f"base_url={server.url}/chat/completions,model=scripted,num_concurrent=1,max_retries=1",
            tasks=[PT_GROUP],
            log_samples=False,
            apply_chat_template=True,
            task_manager=TaskManager(include_path=str(tmp_path / "tasks"), include_defaults=False),
        )
    finally:
        server.close()
    assert set(counts) == {f"cot_{r['qtype']}" for r in rows}
    assert 0 < sum(r["accuracy"] for r in rows) < 100 * len(rows)
    for row in rows:
        assert row["parse_failures"] == 0 and row["qa_mode"] == "cot"
        task = f"{PT_GROUP}_cot_{row['qtype']}"
        assert _metric(res, task, "acc") == pytest.approx(row["accuracy"] / 100, abs=1e-12), row["qtype"]


CG_RELEASE = os.environ.get("TOM_ENVS_COMMON_TOM_RELEASE")
PT_RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")


@pytest.mark.skipif(
    not (CG_RELEASE and PT_RELEASE), reason="set TOM_ENVS_COMMON_TOM_RELEASE and TOM_ENVS_PERSUASION_RELEASE"
)
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")  # the release's textless events (documented)
def test_on_the_releases_lm_evals_scores_equal_the_suites(tmp_path):
    """The releases' Common-ToM test split (2,104 questions) and PersuasiveToM's judge_qa (2,041), with the
    release's prompt file and the authors' evaluate.py texts: lm-eval's scores are the suite's rows."""
    from lm_eval.tasks import TaskManager

    from benchmarks.harnesses.lm_eval_family import Source

    pt_data = str(Path(PT_RELEASE) / "data")
    export(ExportRequest(tmp_path / "tasks", ("common-ground",), Source(data_dir=CG_RELEASE)))
    manifest = export(ExportRequest(tmp_path / "tasks", ("persuasion",), Source(data_dir=pt_data)))
    assert [f["prompt_source"] for f in manifest["families"]] == ["file", "release"]
    server = ScriptedServer(scripted_reply)
    try:
        llm = ["--backend", "openai", "--base-url", server.url, "--model", "scripted", "--out", str(tmp_path / "s")]
        cg = {r["order"]: r for r in _suite(cg_bench, ["--data-dir", CG_RELEASE, "--policy", "llm-release", *llm])}
        (pt,) = _suite(
            pers_bench,
            [
                "--data-dir",
                pt_data,
                "--qtypes",
                "judge_qa",
                "--protocol",
                "authors",
                "--policy",
                "llm",
                "--repetitions",
                "1",
                *llm,
            ],
        )
        res = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args=f"base_url={server.url}/chat/completions,model=scripted,num_concurrent=4,max_retries=1",
            tasks=[CG_GROUP, f"{CG_GROUP}_all", f"{PT_GROUP}_judge_qa"],
            log_samples=False,
            apply_chat_template=True,
            task_manager=TaskManager(include_path=str(tmp_path / "tasks"), include_defaults=False),
        )
    finally:
        server.close()
    assert cg["all"]["n"] == 2104 and pt["n"] == 2041
    assert _metric(res, CG_GROUP, "acc") == pytest.approx(cg["all"]["accuracy"] / 100, abs=1e-12)
    for order in (1, 2, 3):
        assert _metric(res, f"{CG_GROUP}_order_{order}", "acc") == pytest.approx(cg[order]["accuracy"] / 100, abs=1e-12)
    for key in ("f1_macro", "f1_yes", "f1_no", "consistency"):
        assert _metric(res, f"{CG_GROUP}_all", key) == pytest.approx(cg["all"][key] / 100, abs=1e-12), key
    assert _metric(res, f"{PT_GROUP}_judge_qa", "acc") == pytest.approx(pt["accuracy"] / 100, abs=1e-12)
