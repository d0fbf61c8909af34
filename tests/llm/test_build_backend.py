"""build_backend: the backend named on a command line, and named errors for what is missing."""

from __future__ import annotations

import pytest

from policies.llm import BackendConfigError, OpenAIBackend, build_backend


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("vllm", ""), "needs --model"),
        (("openai", "tiny"), "needs --base-url"),
        (("llama.cpp", "tiny"), "choose vllm or openai"),
    ],
)
def test_missing_or_unknown_options_raise_a_named_error(args, message):
    with pytest.raises(BackendConfigError, match=message):
        build_backend(*args)


def test_an_openai_backend_points_at_the_given_server(fake_openai):
    with build_backend("openai", "served-name", base_url=fake_openai.url, max_retries=0) as backend:
        assert isinstance(backend, OpenAIBackend)
        assert (backend.base_url, backend.model, backend.max_retries) == (fake_openai.url, "served-name", 0)
