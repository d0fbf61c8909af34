"""``perf llm``'s long episode: its length is an option (``--cache-horizon``; 004's 100 on a GPU, a few on a CPU),
and the rounds its cost growth compares follow it; a length it cannot measure with is a named error before an
engine starts."""

from __future__ import annotations

import pytest

from benchmarks.matrix.perf_llm import PerfLLMError, growth_rounds


@pytest.mark.parametrize("horizon, rounds", [(100, (10, 100)), (40, (10, 40)), (8, (4, 8)), (4, (2, 4)), (3, (2, 3))])
def test_the_cost_growth_compares_round_10_or_half_with_the_last(horizon, rounds):
    assert growth_rounds(horizon) == rounds


@pytest.mark.parametrize("horizon", [2, 1, 0, -5, 2.5, "8", True])
def test_a_long_episode_too_short_to_compare_two_rounds_is_a_named_error(horizon):
    with pytest.raises(PerfLLMError, match="cache_horizon"):
        growth_rounds(horizon)


@pytest.mark.parametrize("growth_at", [(1, 8), (4, 4), (5, 4), (2, 9)])
def test_growth_rounds_outside_the_long_episode_are_a_named_error(growth_at):
    with pytest.raises(PerfLLMError, match="growth_at"):
        growth_rounds(8, growth_at)


def test_the_command_refuses_a_short_long_episode_before_an_engine_starts(capsys):
    from benchmarks.__main__ import main

    assert main(["perf", "llm", "--model", "path/that/does/not/exist", "--cache-horizon", "2"]) == 2
    assert "--cache-horizon" in capsys.readouterr().err


def test_the_option_belongs_to_perf_llm_only(capsys):
    from benchmarks.__main__ import main

    assert main(["perf", "matrix", "--cache-horizon", "5"]) == 2
    assert "--cache-horizon does nothing in `perf matrix`" in capsys.readouterr().err
