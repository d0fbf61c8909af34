"""Policy seeds: a run-level stream of its own, independent of the env seeds (docs/architecture.md,
"Information rule", the runner's channels).

A policy's seed must not tell it the env's: with the env seed (or anything a table over env seeds inverts, such
as a fixed hash of it) a policy makes a shadow env with the same id and seed and replays the persona, the
partner, the parties and every later draw. So every path that plays a policy (the runner one by one and in
lockstep, AEC seats, Ray workers, RL evaluation, the harnesses) seeds it with :func:`policy_seed`::

    SeedSequence(entropy=E, spawn_key=(POLICY_STREAM, seat, sign, |env_seed|)).generate_state(1, uint64)[0] >> 1

where ``E`` is the run's policy entropy, 128 bits that no env seed determines:

* ``TOM_ENVS_POLICY_ENTROPY`` (:data:`ENTROPY_VAR`), when set (a decimal or ``0x`` hexadecimal integer): pin it
  to replay a run exactly;
* otherwise drawn from the operating system once per process (:func:`run_entropy`).

:func:`benchmarks.runner.run_cell` keeps it with the results: every record carries it (:data:`FIELD`, a decimal
string) and a resumed cell plays its missing seeds with the entropy its stored records name, so an interrupted
run resumes into the file an uninterrupted one writes; the Ray executor hands each worker the entropy of the cell
it plays. The env seeds are untouched: the same ``--seed`` draws the same personas, partners and questions.
A policy seeded this way knows neither the env seed nor ``E``: a table over env seeds does not invert it, and a
shadow env made with the policy's seed draws another episode (tests/test_runner_channels.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from tom_envs.errors import TomEnvsError

#: The first word of a policy seed's spawn key: the policy stream, apart from anything else drawn from ``E``.
POLICY_STREAM = 0x504F4C
#: The environment variable that pins the run's policy entropy.
ENTROPY_VAR = "TOM_ENVS_POLICY_ENTROPY"
#: The record field that stores the entropy a record's policies were seeded from (a decimal string).
FIELD = "policy_entropy"

_scoped: contextvars.ContextVar[int | None] = contextvars.ContextVar("policy_entropy", default=None)
_process: list[int] = []


class PolicyEntropyError(TomEnvsError, ValueError):
    """A policy entropy that is not a non-negative integer (``TOM_ENVS_POLICY_ENTROPY``, a stored record)."""


def parse_entropy(value: Any, where: str = ENTROPY_VAR) -> int:
    """``value`` (an int, or a decimal / ``0x`` hexadecimal string) as a non-negative integer.

    Raises:
        PolicyEntropyError: naming ``where`` the value came from.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return int(value)
    if isinstance(value, str):
        text = value.strip().lower()
        with contextlib.suppress(ValueError):
            out = int(text, 16) if text.startswith("0x") else int(text, 10)
            if out >= 0:
                return out
    raise PolicyEntropyError(
        f"{where} must be a non-negative integer (decimal or 0x hex), got {value!r}; "
        f"copy the {FIELD!r} of a stored record to replay its run"
    )


def run_entropy() -> int:
    """The policy entropy in force: the innermost :func:`scope`'s, else ``TOM_ENVS_POLICY_ENTROPY``, else 128 bits
    drawn from the operating system once per process."""
    scoped = _scoped.get()
    if scoped is not None:
        return scoped
    given = os.environ.get(ENTROPY_VAR)
    if given:
        return parse_entropy(given)
    if not _process:
        _process.append(secrets.randbits(128))
    return _process[0]


@contextlib.contextmanager
def scope(entropy: int | None) -> Iterator[int]:
    """Seed policies from ``entropy`` inside the block (None: the entropy in force outside it)."""
    value = run_entropy() if entropy is None else parse_entropy(entropy, "a policy entropy")
    token = _scoped.set(value)
    try:
        yield value
    finally:
        _scoped.reset(token)


def stored(records: Iterable[Mapping[str, Any]]) -> int | None:
    """The policy entropy stored records were played with (the first that names one), or None."""
    for rec in records:
        value = rec.get(FIELD) if isinstance(rec, Mapping) else None
        if value is not None:
            return parse_entropy(value, f"a stored record's {FIELD!r}")
    return None


def of_records(records: Iterable[Mapping[str, Any]]) -> int:
    """The entropy to play a results file's missing episodes with: its stored records', else the one in force."""
    found = stored(records)
    return run_entropy() if found is None else found


def policy_seed(env_seed: int | None, seat: int = 0, entropy: int | None = None) -> int | None:
    """The seed of the ``seat``-th policy of the episode whose env is seeded ``env_seed`` (63 bits, from the run's
    policy stream; None for an unseeded episode)."""
    if env_seed is None:
        return None
    s = int(env_seed)
    key = (POLICY_STREAM, int(seat), int(s < 0), abs(s))
    ss = np.random.SeedSequence(entropy=run_entropy() if entropy is None else entropy, spawn_key=key)
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def record_field() -> dict[str, str]:
    """``{FIELD: entropy}`` for a record played under the entropy in force."""
    return {FIELD: str(run_entropy())}
