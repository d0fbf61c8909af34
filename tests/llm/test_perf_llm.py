"""The LLM performance benchmark runs on the real tiny engine and reports sane figures for both
scoring paths (targets are reported by the benchmark, not asserted here: timings on a shared CPU
are noisy; token counts are not, and are asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks.matrix.perf_llm import perf_llm


@pytest.mark.slow
def test_perf_llm_reports_every_figure_for_both_scoring_paths(vllm_backend):
    result = perf_llm(vllm_backend, episodes=4, horizon=2, cache_horizon=8, growth_at=(4, 8))
    json.dumps(result)  # JSON-ready
    assert vllm_backend.scoring_path == "next-token"  # restored afterwards
    paths = result["scoring_paths"]
    assert set(paths) == {"next-token", "prompt-logprobs"} and result["scoring_path"] == "next-token"
    for figures in paths.values():
        for key in ("batched_decisions_per_s", "sequential_decisions_per_s", "speedup"):
            assert figures[key] > 0
        assert figures["decisions_per_call"] == 4  # one scoring call per round serves every episode
        assert figures["same_decisions"] is True
        assert figures["rounds"] == 8 and figures["cost_growth"] > 0 and figures["time_growth"] > 0
    new, old = paths["next-token"], paths["prompt-logprobs"]
    assert result["lm_scoring_equal_to_old_path"] is True and result["lm_scoring_compared_rounds"] == 8
    assert result["lm_scoring_max_abs_diff"] <= 1e-3
    assert old["prefix_cache_share"] == 0.0  # prompt-logprob requests never read the prefix cache
    assert new["prefix_cache_share"] > 0.5 and result["lm_scoring_prefix_cache_share"] == new["prefix_cache_share"]
    # the old path computes each label's whole sequence; the new one about the round's new tokens
    assert new["computed_prompt_tokens_per_decision"] * 3 < old["computed_prompt_tokens_per_decision"]
    assert old["cost_growth"] > 1.0  # the prompt grows, and the old path pays for all of it every round
    assert result["cache_rounds"] == 8
    assert 0.0 <= result["prefix_cache_share"] <= 1.0


def test_perf_llm_reports_a_path_the_server_refuses_and_measures_the_other(tmp_path):
    from policies.llm import OpenAIBackend
    from tests.llm.scripted_server import CompletionServer
    from tests.llm.tiny_model import build_tokenizer

    build_tokenizer(tmp_path)
    server = CompletionServer()
    server.next_token = "refuse"  # a server without logprob_token_ids: only the old path works
    try:
        with OpenAIBackend(server.url, "toy", tokenizer=str(tmp_path), max_retries=0) as backend:
            result = perf_llm(backend, episodes=2, horizon=2, cache_horizon=3, growth_at=(2, 3))
            assert backend.scoring_path == "auto"  # restored
    finally:
        server.close()
    json.dumps(result)
    assert "logprob_token_ids" in result["scoring_paths"]["next-token"]["error"]
    assert result["scoring_path"] == "prompt-logprobs" and "lm_scoring_equal_to_old_path" not in result
    old = result["scoring_paths"]["prompt-logprobs"]
    assert old["same_decisions"] is True and old["decisions_per_call"] == 2 and old["rounds"] == 3
    assert old["prefix_cache_share"] is None  # the server reports no cache hits
    assert result["cache_rounds"] == 3


@pytest.mark.slow
def test_perf_llm_times_a_plain_transformers_loop_on_the_same_model(vllm_backend, tiny_model_dir):
    """The reference a user would write (transformers, one request at a time) plays the same decisions."""
    from benchmarks.matrix.perf_llm import versus_transformers

    result = versus_transformers(vllm_backend, str(tiny_model_dir), "RPS", episodes=4, horizon=2, reference_episodes=1)
    for prefix in ("", "qa_"):
        assert result[f"{prefix}batched_decisions_per_s"] > 0 and result[f"{prefix}transformers_decisions_per_s"] > 0
        assert result[f"{prefix}speedup_vs_transformers"] == pytest.approx(
            result[f"{prefix}batched_decisions_per_s"] / result[f"{prefix}transformers_decisions_per_s"]
        )
    assert result["reference_episodes"] == 1


def test_the_transformers_reference_scores_as_vllm_does(vllm_backend, tiny_model_dir):
    """Its label scores equal the engine's (float32 both): the reference does the same work, not less."""
    from benchmarks.matrix.perf_transformers import TransformersLoop
    from policies.llm.base import ScoreRequest

    request = ScoreRequest(
        [{"role": "user", "content": "Pick one: Rock, Paper or Scissors?"}], [" Rock", " Paper", " Scissors"]
    )
    reference = TransformersLoop(str(tiny_model_dir))
    ours, theirs = vllm_backend.score([request])[0], reference.score([request])[0]
    assert ours == pytest.approx(theirs, abs=1e-3)
