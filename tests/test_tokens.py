"""Growing prompts encoded without re-encoding their start (policies/llm/tokens.py): always equal to the whole
encode, on the real model's tokenizer, and on a tokenizer that merges across newlines (where the reuse turns
itself off after its first mismatch)."""

from __future__ import annotations

import pytest

from policies.llm.tokens import IncrementalEncoder


def growing_prompts(rounds: int) -> list[str]:
    head = "<|im_start|>user\nYou play a repeated game.\n"
    lines = [f"Round {i}: you played J, the other player played {'FB'[i % 2]}.\nScore: {i % 3}" for i in range(rounds)]
    return [head + "\n".join(lines[:t]) + f"\nWhich action in round {t + 1}?<|im_end|>\n" for t in range(rounds)]


def test_the_real_tokenizer_gets_the_whole_encode_and_reuses_the_start():
    from transformers import AutoTokenizer

    from policies.llm.models import DEFAULT_MODEL, prepare

    tokenizer = AutoTokenizer.from_pretrained(str(prepare(DEFAULT_MODEL)))
    encoder = IncrementalEncoder(tokenizer, checked=5)
    for text in growing_prompts(60):
        assert encoder.encode(text) == tuple(tokenizer.encode(text, add_special_tokens=False))
        assert encoder.encode(text + " J") == tuple(tokenizer.encode(text + " J", add_special_tokens=False))
    assert encoder.reuse and encoder.reused_chars > 10 * len(growing_prompts(60)[-1])


def test_a_tokenizer_that_merges_across_newlines_turns_the_reuse_off():
    from tokenizers import Tokenizer, models, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE(unk_token="?"))  # no pre-tokenizer: merges may cross a newline
    raw.train_from_iterator(
        ["a\nb\nab\na\nb"] * 200, trainers.BpeTrainer(vocab_size=40, special_tokens=["?"], show_progress=False)
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw)
    assert len(tokenizer.encode("a\nb", add_special_tokens=False)) < 3  # it does merge across the newline
    encoder = IncrementalEncoder(tokenizer)
    texts = ["a\nb", "a\nb\na", "a\nb\na\nb", "a\nb\na\nb\nab"]
    assert [encoder.encode(t) for t in texts] == [tuple(tokenizer.encode(t, add_special_tokens=False)) for t in texts]
    assert not encoder.reuse  # found out on the first mismatch, whole encodes from then on


@pytest.mark.parametrize("text", ["", "\n", "no newline", "ends with a newline\n", "a\n\nb", "a\n b"])
def test_edge_texts(text):
    from transformers import AutoTokenizer

    from policies.llm.models import DEFAULT_MODEL, prepare

    tokenizer = AutoTokenizer.from_pretrained(str(prepare(DEFAULT_MODEL)))
    encoder = IncrementalEncoder(tokenizer)
    assert encoder.encode(text) == tuple(tokenizer.encode(text, add_special_tokens=False))
