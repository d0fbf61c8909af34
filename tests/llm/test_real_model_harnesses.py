"""The real small model inside the harnesses researchers run: Inspect AI's ``hf`` provider and lm-evaluation-harness'
``hf`` model, both loading the converted folder of ``smollm2-135m`` (``tom-envs model path smollm2-135m``; no hub,
no download). A few samples each: the suite's tasks run end to end on a real model's replies, and the scores are
the suite's own code on them."""

from __future__ import annotations

import json

import pytest

from policies.llm.models import DEFAULT_MODEL, ModelNotInstalled, prepare

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]


@pytest.fixture(scope="module")
def folder() -> str:
    try:
        return str(prepare(DEFAULT_MODEL))
    except ModelNotInstalled as exc:
        pytest.fail(str(exc))


def test_an_inspect_episode_task_on_the_real_model(folder, tmp_path):
    """``inspect eval tom_envs/ipd --model hf/smollm2-135m -M model_path=<folder> -M device=cpu``, two rounds."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from benchmarks.harnesses.inspect_tasks import TASKS

    model = get_model(f"hf/{DEFAULT_MODEL}", model_path=folder, device="cpu", memoize=False)
    logs = inspect_eval(
        TASKS["ipd"](episodes=1, horizon=2, strategy="qa", fallback="random", max_resamples=1),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    scores = {k: v.value for s in logs[0].results.scores for k, v in s.metrics.items()}
    assert 0.0 <= scores["tom_accuracy"] <= 100.0 and scores["regret_per_step"] >= 0.0
    assert logs[0].stats.model_usage[f"hf/{DEFAULT_MODEL}"].output_tokens > 0  # the model really replied


def test_lm_eval_runs_the_exported_tasks_on_the_real_model(folder, tmp_path):
    """lm-eval's ``hf`` model on the converted folder, two questions of two exported tasks, the chat layout;
    its accuracy equals the suite's scorer on its logged replies."""
    lm_eval = pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    from benchmarks.harnesses.lm_eval_export import ExportRequest, export
    from benchmarks.harnesses.lm_eval_family import adapter_of

    export(ExportRequest(tmp_path / "tasks"))
    tasks = ["tom_common_tom_order_1", "tom_persuasive_tom_desire_ee"]
    res = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={folder},device=cpu,dtype=float32",
        tasks=tasks,
        limit=2,
        task_manager=TaskManager(include_path=str(tmp_path / "tasks"), include_defaults=False),
        log_samples=True,
        apply_chat_template=True,
        gen_kwargs="max_gen_toks=8",
    )
    for task, family, group in zip(tasks, ("common_ground", "persuasion"), ("tom_common_tom", "tom_persuasive_tom")):
        scorer = adapter_of(family).scorer(json.loads((tmp_path / "tasks" / group / "scoring.json").read_text()))
        samples = res["samples"][task]
        assert len(samples) == 2 and all(s["resps"][0][0] for s in samples)  # real replies came back
        accs = [scorer.score(s["doc"], s["filtered_resps"][0])["acc"] for s in samples]
        assert res["results"][task]["acc,none"] == pytest.approx(sum(accs) / len(accs))
