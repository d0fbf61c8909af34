"""The next-token scoring path (a token trie of max_tokens=1 requests, served by the prefix cache)
gives the scores of the old prompt-logprobs path, on the real tiny engine, for every label set."""

from __future__ import annotations

import pytest

from policies.llm import InvalidRequest, ScoreRequest
from policies.llm.scoring import SCORING_PATHS, check_scoring_path, plan_next_token_scores, plan_token_scores
from tom_envs.matrix.games import GAMES, LABEL_SETS
from tom_envs.matrix.text import render_state

HISTORY = [(0, 1), (1, 1), (0, 0)]


@pytest.fixture(scope="module")
def tiny_tokenizer(tmp_path_factory):
    """The tiny model's tokenizer alone (no weights, no engine)."""
    from tests.llm.tiny_model import build_tokenizer

    return build_tokenizer(tmp_path_factory.mktemp("tiny-tokenizer"))


def label_requests() -> list[tuple[str, ScoreRequest]]:
    """One plain and one chat request per game and label set, scoring each side's labels as the LM
    strategy does (a space, then the label), after a prompt with a few rounds of history."""
    cases = []
    for name, game in GAMES.items():
        for label_set in LABEL_SETS:
            state = render_state(game, [(a % game.n_actions, b % game.n_partner_actions) for a, b in HISTORY], 10,
                                 label_set)  # fmt: skip
            for role in ("focal", "partner"):
                labels = [" " + label for label in game.labels(label_set, role)]
                cases.append((f"{name}-{label_set}-{role}", ScoreRequest(state + "\nAnswer:", labels)))
            chat = [{"role": "system", "content": state}, {"role": "user", "content": "Your action?"}]
            cases.append((f"{name}-{label_set}-chat", ScoreRequest(chat, [" " + x for x in game.labels(label_set)])))
    return cases


EDGE_CASES = [
    ScoreRequest("You chose Coop", ["erate", " Defect", "era", ""]),  # a merged boundary, an empty continuation
    ScoreRequest("", ["ABC", "A"]),  # the tokenizer's BOS is the only prompt token
    ScoreRequest("A", ["BC"]),
]


@pytest.fixture
def restore_path(vllm_backend):
    yield vllm_backend
    vllm_backend.scoring_path = "auto"


def score_both(backend, requests: list[ScoreRequest]) -> tuple[list[list[float]], list[list[float]]]:
    backend.scoring_path = "prompt-logprobs"
    old = backend.score(requests)
    backend.scoring_path = "next-token"
    new = backend.score(requests)
    return old, new


@pytest.mark.slow
def test_next_token_scores_equal_prompt_logprob_scores_for_every_label_set(restore_path):
    backend = restore_path
    assert backend.scoring_path == "next-token"  # the default on this vLLM
    cases = label_requests()
    requests = [r for _, r in cases] + EDGE_CASES
    old, new = score_both(backend, requests)
    names = [n for n, _ in cases] + [f"edge-{i}" for i in range(len(EDGE_CASES))]
    for name, row_old, row_new in zip(names, old, new):
        assert row_new == pytest.approx(row_old, abs=1e-4), name
    assert len({round(s, 3) for s in old[0]}) == len(old[0])  # the scores tell the labels apart
    # chain rule across a merged boundary holds on the new path too
    coop = new[len(cases)]
    [[tail]] = backend.score([ScoreRequest("You chose Coopera", ["te"])])
    assert coop[2] + tail == pytest.approx(coop[0], abs=1e-4)
    assert coop[3] == 0.0


@pytest.mark.slow
def test_next_token_requests_of_a_round_are_served_by_the_prefix_cache(restore_path):
    backend = restore_path
    backend.scoring_path = "next-token"
    game = GAMES["RPS"]
    history = [(i % 3, (i + 1) % 3) for i in range(25)]
    labels = [" " + x for x in game.labels("repeated")]  # many tokens per label: a deep trie
    backend.reset_prefix_cache()
    backend.score([ScoreRequest(render_state(game, history[:24], 100) + "\nAnswer:", labels)])
    before = backend.stats.prompt_tokens, backend.stats.prefix_cache_hit_tokens or 0
    backend.score([ScoreRequest(render_state(game, history, 100) + "\nAnswer:", labels)])
    prompt = backend.stats.prompt_tokens - before[0]
    cached = backend.stats.prefix_cache_hit_tokens - before[1]
    assert cached / prompt >= 0.8
    backend.scoring_path = "prompt-logprobs"
    before = backend.stats.prompt_tokens, backend.stats.prefix_cache_hit_tokens or 0
    backend.score([ScoreRequest(render_state(game, history, 100) + "\nAnswer:", labels)])
    assert backend.stats.prefix_cache_hit_tokens - before[1] == 0  # the old path never reads the cache


@pytest.mark.slow
def test_scoring_path_names_are_checked(vllm_backend):
    with pytest.raises(InvalidRequest, match="prompt-logprobs"):
        vllm_backend.scoring_path = "prefix"
    assert vllm_backend.scoring_path in SCORING_PATHS


def test_the_trie_asks_once_per_distinct_prefix(tiny_tokenizer):
    single = ScoreRequest("Answer:", [" Rock", " Paper"])  # one token each after the prompt
    deep = ScoreRequest("Answer:", [" JJJJJJJJJJJJ", " JJJJJJFFFF"])  # shared first tokens
    plan = plan_next_token_scores(tiny_tokenizer, [single, deep])
    prompt = tuple(tiny_tokenizer.encode("Answer:"))
    single_ids = [tuple(tiny_tokenizer.encode("Answer:" + c)) for c in single.continuations]
    assert all(len(ids) == len(prompt) + 1 and ids[:-1] == prompt for ids in single_ids)  # precondition
    first, tokens = plan.queries[0]
    assert first == prompt and tokens[:2] == tuple(ids[-1] for ids in single_ids)  # both labels in one request
    deep_ids = [tuple(tiny_tokenizer.encode("Answer:" + c)) for c in deep.continuations]
    prefixes = {ids[:k] for ids in deep_ids for k in range(len(prompt), len(ids))}
    assert len(plan.queries) == len(prefixes)  # the shared prompt ("Answer:") asked once for both requests
    assert {p for p, _ in plan.queries} == prefixes
    assert all(p[: len(prompt)] == prompt for p, _ in plan.queries)  # every query starts with the prompt
    old = plan_token_scores(tiny_tokenizer, [single, deep])
    assert len(old.sequences) == 4  # the old path: one whole sequence per continuation


def test_an_empty_prompt_without_bos_is_a_named_error(tiny_tokenizer):
    request = ScoreRequest([{"role": "user", "content": "x"}], [" Rock"])
    plan_next_token_scores(tiny_tokenizer, [request])  # the chat template writes BOS: fine

    class NoBos:
        chat_template = None

        def encode(self, text, add_special_tokens=True):
            return tiny_tokenizer.encode(text, add_special_tokens=False)

    with pytest.raises(InvalidRequest, match="non-empty prompt"):
        plan_next_token_scores(NoBos(), [ScoreRequest("", ["Rock"])])
    with pytest.raises(InvalidRequest, match="unknown scoring path"):
        check_scoring_path("trie")
