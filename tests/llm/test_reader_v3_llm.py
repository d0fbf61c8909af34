"""The optional LLM reader of live persuasion v3 (issue 39) on the scripted loopback server (the real
OpenAIBackend and HTTP stack; no vLLM): prompt, parse, re-ask, fallback, and scoring through the same
``score_reader`` as the scripted reader."""

from __future__ import annotations

import json

import pytest

from policies.llm.errors import ReplyError, ResampleLimitReached
from policies.persuasion.llm_reader_v3 import LLMReaderV3, parse_reading_v3
from tom_envs.persuasion.reader_v3 import ReaderV3Error, ReadingV3, load_labelled, score_reader

from .scripted_server import scripted_backend


def _rule(content: str, seed: int | None) -> str:
    """A stand-in model: reads the line at the end of the prompt with three crude rules."""
    line = content.split("Line: ", 1)[1].split("\n", 1)[0].lower()
    if "numpty" in line:
        return "Kind: hostile\nPrinciple: none\nConcern: cost"  # a hostile concern is dropped
    if "expert" in line:
        return "Kind: pitch\nPrinciple: authority\nConcern: doubt"
    return "Kind: nothing\nPrinciple: none\nConcern: none"


def test_the_llm_reader_returns_the_models_reading():
    with scripted_backend(_rule) as (server, backend):
        reader = LLMReaderV3(backend)
        assert reader.read("Experts say it works.") == ReadingV3("pitch", "authority", "doubt")
        assert reader.read("Only a numpty would say no.") == ReadingV3("hostile")
        assert reader.read("Nice weather.", goal="join the club") == ReadingV3("nothing")
        assert reader.stats["decisions"] == 3
        prompt = server.requests[-1]["messages"][-1]["content"]
        assert "wants the persuadee to join the club" in prompt and "Line: Nice weather." in prompt


def test_an_unusable_reply_is_re_asked_then_falls_back_as_configured():
    with scripted_backend(_rule) as (server, backend):
        server.garbage = 1
        reader = LLMReaderV3(backend)
        assert reader.read("Experts say it works.").principle == "authority"
        assert reader.stats["parse_failures"] == 1
        server.garbage = 10
        fallback = LLMReaderV3(backend, max_resamples=1, fallback="random")
        assert fallback.read("Experts say it works.") == ReadingV3("nothing") and fallback.stats["fallbacks"] == 1
        server.garbage = 10
        with pytest.raises(ResampleLimitReached, match="none of 2 replies"):
            LLMReaderV3(backend, max_resamples=1).read("Experts say it works.")


def test_the_llm_reader_is_scored_like_the_scripted_one(tmp_path):
    rows = [
        {"text": "Experts recommend it.", "kind": "pitch", "principle": "authority", "concern": None},
        {"text": "Only a numpty would say no.", "kind": "hostile", "principle": None, "concern": None},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with scripted_backend(_rule) as (server, backend):
        result = score_reader(LLMReaderV3(backend), load_labelled(path))
    assert result["reading_accuracy"] == 1.0 and result["concern_confusion"]["none"]["doubt"] == 1


@pytest.mark.parametrize(
    "reply, says",
    [
        ("I think it is authority.", "Kind:"),
        ("Kind: pitch\nPrinciple: none\nConcern: none", "a pitch names its principle"),
        ("Kind: nothing\nPrinciple: none\nConcern: money", "Concern:"),
    ],
)
def test_unusable_replies_say_why(reply, says):
    with pytest.raises(ReplyError, match=says):
        parse_reading_v3(reply)


def test_a_non_str_line_is_a_named_error_before_any_request():
    with scripted_backend(_rule) as (server, backend):
        with pytest.raises(ReaderV3Error):
            LLMReaderV3(backend).read(42)
        assert server.requests == []
