"""The LLM mediator's choices by log-probability (``LLMMediator(decode="score")``, :mod:`policies.llm.decode`).

The prompts are the generating mediator's (:data:`~policies.negotiation.llm.prompts.MEDIATOR_PREDICT` and
:data:`~policies.negotiation.llm.prompts.MEDIATOR_DECIDE`); what is scored is the start of the JSON reply
they ask for, so every answer scored is one the prompt allows:

* **Stance predictions** (a predicting variant): for every party and topic, ``{"predictions": {"<party>":
  {"<topic>": "`` followed by each option label of the topic (without the closing quote where no label starts
  another: :func:`string_labels`). The cells are scored independently, in one stage.
* **The decision**, field by field, each after those already chosen: ``{"intervene":`` `` false`` or
  `` true``; then ``"strategy"`` (the four of 002) and ``"topic"`` (the case's topics), each after its opening
  quote, and ``"target"`` (a party, or ``null``). It writes no utterance, so the env voices the move with its template for the strategy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from policies.llm.caller import Caller
from policies.llm.decode import Choice, choose_many
from tom_envs.negotiation.metrics import STRATEGIES
from tom_envs.negotiation.scenario import Scenario

Prediction = dict[int, dict[int, int]]


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def string_labels(values: Sequence[str]) -> list[str]:
    """JSON string values as labels after ``"key": "`` (the opening quote is the answer's): each value, without
    its closing quote unless one value starts another (``a`` and ``ab``), so a label costs no request for a
    token that says nothing between the values."""
    ambiguous = any(a != b and b.startswith(a) for a in values for b in values)
    return [_q(v)[1:] if ambiguous else _q(v)[1:-1] for v in values]


def prediction_choices(scenario: Scenario, prompt: str, owner: Any) -> list[Choice]:
    """One choice per (party, topic) cell, party-major: the option labels after the reply's start for that cell."""
    return [
        Choice(
            prompt,
            '{"predictions": {' + f'{_q(p.name)}: {{{_q(t.name)}: "',
            string_labels([o.label for o in t.options]),
            owner,
        )
        for p in scenario.parties
        for t in scenario.topics
    ]


def scored_predictions(caller: Caller, jobs: Sequence[tuple[Scenario, str, Any]]) -> list[Prediction]:
    """Each job's ``(scenario, prediction prompt, owner)`` stance prediction: every cell of every job scored in
    one stage (:func:`~policies.llm.decode.choose_many`)."""
    choices = [prediction_choices(sc, prompt, owner) for sc, prompt, owner in jobs]
    flat = choose_many(caller, "predict", [c for cs in choices for c in cs])
    out, at = [], 0
    for sc, _, _ in jobs:
        m = len(sc.topics)
        out.append({i: {k: flat[at + i * m + k].index for k in range(m)} for i in range(len(sc.parties))})
        at += len(sc.parties) * m
    return out


def _fields(scenario: Scenario) -> list[tuple[str, str, list[str]]]:
    """The decision's fields after ``"intervene": true``: each field's answer after its key, and its labels."""
    return [
        ("strategy", ' "', string_labels(STRATEGIES)),
        ("topic", ' "', string_labels([t.name for t in scenario.topics])),
        ("target", "", [*(" " + _q(p.name) for p in scenario.parties), " null"]),  # a string, or null
    ]


def scored_decisions(caller: Caller, jobs: Sequence[tuple[Scenario, str, Any]]) -> list[dict]:
    """Each job's ``(scenario, decision prompt, owner)`` move, chosen field by field; one call per field over
    the jobs that still need it."""
    starts = choose_many(caller, "decide", [Choice(p, '{"intervene":', [" false", " true"], o) for _, p, o in jobs])
    answers = {j: '{"intervene": true' for j, got in enumerate(starts) if got.index == 1}
    picked: dict[int, list[int]] = {j: [] for j in answers}
    for n, (field, opening, _) in enumerate(_fields(jobs[0][0]) if jobs else []):
        todo = sorted(answers)
        choices = []
        for j in todo:
            scenario, prompt, owner = jobs[j]
            choices.append(Choice(prompt, f"{answers[j]}, {_q(field)}:{opening}", _fields(scenario)[n][2], owner))
        for j, choice, got in zip(todo, choices, choose_many(caller, f"decide_{field}", choices)):
            closing = '"' if opening and not got.label.endswith('"') else ""
            answers[j] = choice.answer + got.label + closing
            picked[j].append(got.index)
    out = []
    for j, (scenario, _, _) in enumerate(jobs):
        if j not in picked:
            out.append({"intervene": False})
            continue
        strategy, topic, target = picked[j]
        move = {"intervene": True, "strategy": STRATEGIES[strategy], "topic": topic}
        if target < len(scenario.parties):
            move["target"] = target
        out.append(move)
    return out


__all__ = ["prediction_choices", "scored_decisions", "scored_predictions", "string_labels"]
