"""``tom-envs export lm-eval DIR`` (issue 31): what it writes, that lm-eval finds it, the named errors
on bad input, and the export of the authors' releases (when ``TOM_ENVS_COMMON_TOM_RELEASE`` /
``TOM_ENVS_PERSUASION_RELEASE`` are set). lm-eval running the tasks: tests/test_lm_eval_scores.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.cli import HelpFormatter
from benchmarks.qa_llm import data_key
from benchmarks.harnesses.lm_eval_export import EXPORT, MANIFEST, ExportRequest, export
from benchmarks.harnesses.lm_eval_family import LMEvalExportError, Source, adapter_of, adapters
from tom_envs.errors import DatasetError

CG, PT = "tom_common_tom", "tom_persuasive_tom"
CG_RELEASE = os.environ.get("TOM_ENVS_COMMON_TOM_RELEASE")
PT_RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")


def cli(*argv: str) -> int:
    """``tom-envs export ...`` through the command's own parser and run function."""
    parser = argparse.ArgumentParser(prog="tom-envs export", formatter_class=HelpFormatter)
    EXPORT.add_arguments(parser)
    return EXPORT.run(parser.parse_args(list(argv)))


def docs(out: Path, group: str, task: str) -> list[dict]:
    return [json.loads(x) for x in (out / group / "data" / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()]


def family(manifest: dict, name: str) -> dict:
    (entry,) = [f for f in manifest["families"] if f["family"] == name]
    return entry


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("export") / "tasks"
    return out, export(ExportRequest(out))


def test_both_qa_families_have_an_export_found_from_their_declarations():
    assert list(adapters()) == ["common-ground", "persuasion"]
    assert adapter_of("common_ground").prefix == CG and adapter_of("persuasion").prefix == PT


def test_the_sample_export_has_a_task_per_question_type_a_group_per_family_and_a_manifest(sample):
    out, manifest = sample
    assert json.loads((out / MANIFEST).read_text(encoding="utf-8")) == manifest
    assert manifest["harness"] == "lm-eval" and {"tom_envs", "commit"} <= set(manifest["code"])
    cg, pt = family(manifest, "common_ground"), family(manifest, "persuasion")
    assert cg["split"] == "test" and cg["data_dir"] is None and cg["env_id"] == "tom/CommonToM-v2"
    assert cg["counts"] == {"order_1": 63, "order_2": 66, "order_3": 62, "all": 191} and cg["questions"] == 191
    assert set(cg["tasks"]) == {f"{CG}_order_1", f"{CG}_order_2", f"{CG}_order_3", f"{CG}_all"}
    assert not cg["tasks"][f"{CG}_all"]["in_group"] and cg["group_metrics"] == ["acc", "unparsed"]
    assert pt["split"] == "all" and pt["prompt_source"] == "ours" and pt["env_id"] == "tom/PersuasiveToM-v1"
    assert sum(pt["counts"].values()) == pt["questions"] == 90 and len(pt["counts"]) == 8
    assert pt["generation_kwargs"] == {"until": [], "do_sample": True, "temperature": 0.7, "max_gen_toks": 500}
    for entry in (cg, pt):
        for name, task in entry["tasks"].items():
            assert (out / entry["folder"] / f"{name}.yaml").is_file()
            assert len(docs(out, entry["folder"], name[len(entry["folder"]) + 1 :])) == task["questions"]
    # one document per question: the prompt as sent, the gold answer, what the scorer reads
    first = docs(out, PT, "judge_qa")[0]
    assert {"system", "prompt", "answer", "answer_index", "choices", "option_slots"} <= set(first)
    assert first["answer"] == "AB"[first["answer_index"]] and first["option_slots"] == 6
    assert all(d["answer"] in ("Yes", "No") and "system" not in d for d in docs(out, CG, "all"))


def test_lm_eval_finds_every_exported_task_and_group(sample):
    pytest.importorskip("lm_eval", reason="the lm-eval extra")
    from lm_eval.tasks import TaskManager

    out, manifest = sample
    tm = TaskManager(include_path=str(out), include_defaults=False)
    names = set(tm.all_tasks)
    for entry in manifest["families"]:
        assert entry["group"] in names and set(entry["tasks"]) <= names
    loaded = tm.load([f"{PT}_desire_ee"])  # the YAML and its !function hooks resolve
    assert loaded


def test_the_task_yaml_generates_with_the_authors_request_and_the_suites_hooks(sample):
    out, _ = sample
    text = (out / PT / f"{PT}_desire_ee.yaml").read_text(encoding="utf-8")
    for line in (
        "output_type: generate_until",
        "doc_to_text: prompt",
        "doc_to_target: answer",
        "process_results: !function utils.process_results_desire_ee",
        "aggregation: !function utils.agg_consistency",
        "description: system",
        "  temperature: 0.7",
        "  until: []",
    ):
        assert line in text, line
    group = (out / CG / f"_{CG}.yaml").read_text(encoding="utf-8")
    assert f'group: "{CG}"' in group and "weight_by_size: true" in group and f"{CG}_all" not in group
    assert "description:" not in (out / CG / f"{CG}_order_1.yaml").read_text(encoding="utf-8")


def test_the_generated_hooks_score_with_the_suites_readers(sample):
    """utils.py's hooks (imported as lm-eval imports them): a reply the authors' rule reads, one only the
    lenient forms read, a letter beyond the options (answered, wrong) and one nothing reads (wrong, counted)."""
    import importlib.util

    out, _ = sample

    def utils(group: str):
        spec = importlib.util.spec_from_file_location(f"utils_{group}", out / group / "utils.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    pt, doc = utils(PT), docs(out, PT, "judge_qa")[0]
    right, wrong = "AB"[doc["answer_index"]], "AB"[1 - doc["answer_index"]]
    assert pt.process_results_judge_qa(doc, [f"{right}. because"]) == {"acc": 1.0, "unparsed": 0.0}
    assert pt.process_results_judge_qa(doc, [f"The answer is {right}"]) == {"acc": 1.0, "unparsed": 0.0}
    assert pt.process_results_judge_qa(doc, [wrong]) == {"acc": 0.0, "unparsed": 0.0}
    assert pt.process_results_judge_qa(doc, ["F"]) == {"acc": 0.0, "unparsed": 0.0}
    assert pt.process_results_judge_qa(doc, ["I cannot tell."]) == {"acc": 0.0, "unparsed": 1.0}
    ee = docs(out, PT, "desire_ee")
    values = [pt.process_results_desire_ee(d, [d["answer"]]) for d in ee]
    assert pt.agg_consistency([v["consistency"] for v in values]) == 1.0
    cg, doc = utils(CG), docs(out, CG, "all")[0]
    scored = cg.process_results_all(doc, [f" {doc['answer']}. "])
    assert scored["acc"] == 1.0 and scored["unparsed"] == 0.0 and scored["f1_macro"]["correct"]
    assert cg.process_results_all(doc, [doc["answer"].lower()])["unparsed"] == 1.0  # exactly Yes or No
    assert cg.agg_f1_macro([scored["f1_macro"]]) == 1.0


def test_the_command_exports_one_family_and_a_rerun_replaces_it_keeping_the_other(tmp_path, capsys):
    out = tmp_path / "tasks"
    assert cli("lm-eval", str(out)) == 0
    assert "tom_common_tom_order_1: 63 questions" in capsys.readouterr().out
    (out / PT / "stale.yaml").write_text("task: stale\n", encoding="utf-8")
    assert cli("lm-eval", str(out), "--family", "persuasion", "--split", "test", "--format", "json") == 0
    manifest = json.loads(capsys.readouterr().out)
    assert [f["family"] for f in manifest["families"]] == ["common_ground", "persuasion"]
    assert family(manifest, "persuasion")["split"] == "test" and not (out / PT / "stale.yaml").exists()
    assert (out / CG / f"{CG}_all.yaml").is_file()
    again = export(ExportRequest(out, ("common_ground",)))  # the family's name works as its command
    assert [f["family"] for f in again["families"]] == ["common_ground", "persuasion"]
    assert family(again, "persuasion")["split"] == "test"


def test_system_in_user_and_cot_put_the_questions_as_the_suites_protocol_does(tmp_path):
    from benchmarks.persuasion.qa_answers import QA_ENV
    from benchmarks.qa_llm import make_qa_env
    from policies.persuasion.qa_protocol import AuthorsProtocol
    from tom_envs.persuasion.prompts import OUR_PROMPTS

    from tom_envs.persuasion import QTYPES

    manifest = export(ExportRequest(tmp_path, ("persuasion",), Source(system_in_user=True, qa_mode="cot")))
    assert set(family(manifest, "persuasion")["counts"]) == {f"cot_{q}" for q in QTYPES}
    env = make_qa_env(QA_ENV, shuffle_choices=False, option_slots=6).unwrapped
    obs, _ = env.reset(seed=0, options={"episode": 0})
    first = next(
        d
        for d in docs(tmp_path, PT, f"cot_{env.current_item.qtype}")
        if d["turn"] == env.current_item.turn and d["question"] == obs["question"]
    )
    (message,) = AuthorsProtocol(OUR_PROMPTS, system_in_user=True).ask(obs, "cot", None).messages
    assert "system" not in first and first["prompt"] == message["content"]


# ---------------------------------------------------------------------- bad input
BAD_OPTIONS = [
    (("--family", "matrix"), ("matrix",), Source(), "unknown family 'matrix'"),
    (("--data-dir", "somewhere"), (), Source(data_dir="somewhere"), "--data-dir and --authors-prompts name one"),
    (
        ("--family", "persuasion", "--split", "train"),
        ("persuasion",),
        Source(split="train"),
        "--split train: persuasion has the splits all, dev, test",
    ),
    (("--split", "dev"), (), Source(split="dev"), "--split dev: common-ground has the splits test, train, all"),
    (
        ("--family", "common-ground", "--qa-mode", "cot"),
        ("common-ground",),
        Source(qa_mode="cot"),
        "--qa-mode cot: common-ground's authors' protocol has zero_shot",
    ),
    (
        ("--family", "common-ground", "--system-in-user"),
        ("common-ground",),
        Source(system_in_user=True),
        "apply to a protocol with a system message",
    ),
]


@pytest.mark.parametrize("argv, families, source, message", BAD_OPTIONS)
def test_bad_options_are_named_errors(tmp_path, capsys, argv, families, source, message):
    assert cli("lm-eval", str(tmp_path / "out"), *argv) == 2
    assert message in capsys.readouterr().err
    with pytest.raises(LMEvalExportError, match=re.escape(message.split(":")[0])):
        export(ExportRequest(tmp_path / "out", families, source))
    assert not (tmp_path / "out").exists()


def test_an_output_folder_that_is_a_file_or_holds_other_files_is_refused(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(LMEvalExportError, match="is a file"):
        export(ExportRequest(target))
    with pytest.raises(LMEvalExportError, match="which is a file"):
        export(ExportRequest(target / "sub"))
    with pytest.raises(SystemExit):  # the command line refuses it before running (argparse: exit status 2)
        cli("lm-eval", str(target))
    assert "is a file" in capsys.readouterr().err
    (tmp_path / "mine" / CG).mkdir(parents=True)
    with pytest.raises(LMEvalExportError, match="was not written by tom-envs export"):
        export(ExportRequest(tmp_path / "mine", ("common-ground",)))


@pytest.mark.parametrize("name", ["common-ground", "persuasion"])
def test_a_data_folder_without_the_files_is_the_familys_named_error(tmp_path, capsys, name):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("lm-eval", str(tmp_path / "out"), "--family", name, "--data-dir", str(empty)) == 2
    assert "error: " in capsys.readouterr().err and not (tmp_path / "out").exists()
    with pytest.raises(DatasetError):
        export(ExportRequest(tmp_path / "out", (name,), Source(data_dir=str(empty))))


def test_a_common_tom_folder_without_its_prompt_file_is_named(tmp_path):
    from tom_envs.common_ground import SAMPLE_DATA_DIR
    from tom_envs.common_ground.prompts import PromptFileError

    data = tmp_path / "data"
    shutil.copytree(SAMPLE_DATA_DIR, data)
    (data / "prompts" / "gpt-zero-shot").unlink()
    with pytest.raises(PromptFileError, match="no prompt file"):
        export(ExportRequest(tmp_path / "out", ("common-ground",), Source(data_dir=str(data))))


# ---------------------------------------------------------------------- the authors' releases
@pytest.mark.skipif(not CG_RELEASE, reason="set TOM_ENVS_COMMON_TOM_RELEASE to the release's data/ folder")
@pytest.mark.filterwarnings("ignore:.*no Event text:UserWarning")  # the release's textless events (documented)
def test_the_common_tom_release_exports_its_2104_test_questions_with_the_release_prompt(tmp_path):
    from policies.common_ground.llm import load_release_prompt, release_prompt
    from tom_envs.common_ground.env import cut_context
    from tom_envs.common_ground.env import load_split

    manifest = export(ExportRequest(tmp_path, ("common-ground",), Source(data_dir=CG_RELEASE)))
    cg = family(manifest, "common_ground")
    assert cg["questions"] == cg["counts"]["all"] == 2104 and cg["data_dir"] == data_key(CG_RELEASE)
    template = load_release_prompt(Path(CG_RELEASE) / "prompts" / "gpt-zero-shot")
    rows = [r for rs in load_split(CG_RELEASE, "test").values() for r in rs]
    assert sorted(d["prompt"] for d in docs(tmp_path, CG, "all")) == sorted(
        release_prompt(template, cut_context(r.context, "window"), r.question) for r in rows
    )
    assert sorted(d["answer"] for d in docs(tmp_path, CG, "all")) == sorted(r.answer for r in rows)


@pytest.mark.skipif(not PT_RELEASE, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of the release")
def test_the_persuasive_tom_release_exports_its_verified_files_with_the_authors_prompts(tmp_path):
    manifest = export(ExportRequest(tmp_path, ("persuasion",), Source(data_dir=str(Path(PT_RELEASE) / "data"))))
    pt = family(manifest, "persuasion")
    assert pt["counts"] == {"desire_ee": 2459, "intent_ee": 2041, "behavior_qa": 2041, "judge_qa": 2041}
    assert pt["prompt_source"] == "release" and pt["prompt_file"].endswith("evaluation/evaluate.py")


def test_a_plugins_export_is_found_in_its_own_package(tmp_path, monkeypatch):
    """As Inspect finds a plugin's tasks: the ``lm_eval`` module beside the family's benchmark module, in the
    plugin's package (not under benchmarks/)."""
    import sys

    from tom_envs.family import GROUP, refresh

    pkg = tmp_path / "qa_plugin_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "family.py").write_text(
        "from tom_envs.family import Family\n"
        "FAMILY = Family(name='qa_plugin', command='qa-plugin', "
        "benchmark='qa_plugin_pkg.benchmark')\n"
    )
    (pkg / "benchmark.py").write_text("")
    (pkg / "lm_eval.py").write_text("from benchmarks.common_ground.lm_eval import LM_EVAL\n")
    info = tmp_path / "qa_plugin_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: qa-plugin-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nqa_plugin = qa_plugin_pkg.family:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        refresh()
        found = adapters()
        assert "qa-plugin" in found and found["qa-plugin"][0].name == "qa_plugin"
        assert adapter_of("qa_plugin") is adapter_of("common-ground")
    finally:
        monkeypatch.undo()
        for name in [m for m in sys.modules if m.startswith("qa_plugin_pkg")]:
            del sys.modules[name]
        refresh()
