"""The LLM mediator's choices by log-probability (``LLMMediator(decode="score")``, :mod:`policies.llm.decode`).

The prompts are the generating mediator's (:data:`~policies.negotiation.llm.prompts.MEDIATOR_PREDICT` and
:data:`~policies.negotiation.llm.prompts.MEDIATOR_DECIDE`); what is scored is the start of the JSON reply
they ask for, so every answer scored is one the prompt allows:

* **Stance predictions** (a predicting variant): for every party and topic, ``{"predictions": {"<party>":
  {"<topic>":`` followed by each option label of the topic (a space, then the label as a JSON string). The cells are scored
  independently, all in one ``backend.score`` call.
* **The decision**, field by field, each after those already chosen: ``{"intervene":`` `` false`` or
  `` true``; then ``"strategy"`` (the four of 002), ``"topic"`` (the case's topics) and ``"target"`` (a party,
  or ``null``). It writes no utterance, so the env voices the move with its template for the strategy.
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


def prediction_choices(scenario: Scenario, prompt: str, owner: Any) -> list[Choice]:
    """One choice per (party, topic) cell, party-major: the option labels after the reply's start for that cell."""
    return [
        Choice(
            prompt,
            '{"predictions": {' + f"{_q(p.name)}: {{{_q(t.name)}:",
            [f" {_q(o.label)}" for o in t.options],
            owner,
        )
        for p in scenario.parties
        for t in scenario.topics
    ]


def scored_predictions(caller: Caller, jobs: Sequence[tuple[Scenario, str, Any]]) -> list[Prediction]:
    """Each job's ``(scenario, prediction prompt, owner)`` stance prediction, every cell of every job in one call."""
    choices = [prediction_choices(sc, prompt, owner) for sc, prompt, owner in jobs]
    flat = choose_many(caller, "predict", [c for cs in choices for c in cs])
    out, at = [], 0
    for sc, _, _ in jobs:
        m = len(sc.topics)
        out.append({i: {k: flat[at + i * m + k].index for k in range(m)} for i in range(len(sc.parties))})
        at += len(sc.parties) * m
    return out


def _fields(scenario: Scenario) -> list[tuple[str, list[str]]]:
    """The decision's fields after ``"intervene": true``, and each field's labels (JSON values)."""
    return [
        ("strategy", [f" {_q(s)}" for s in STRATEGIES]),
        ("topic", [f" {_q(t.name)}" for t in scenario.topics]),
        ("target", [*(f" {_q(p.name)}" for p in scenario.parties), " null"]),
    ]


def scored_decisions(caller: Caller, jobs: Sequence[tuple[Scenario, str, Any]]) -> list[dict]:
    """Each job's ``(scenario, decision prompt, owner)`` move, chosen field by field; one call per field over
    the jobs that still need it."""
    starts = choose_many(caller, "decide", [Choice(p, '{"intervene":', [" false", " true"], o) for _, p, o in jobs])
    answers = {j: '{"intervene": true' for j, got in enumerate(starts) if got.index == 1}
    picked: dict[int, list[int]] = {j: [] for j in answers}
    for n, (field, _) in enumerate(_fields(jobs[0][0]) if jobs else []):
        todo = sorted(answers)
        choices = []
        for j in todo:
            scenario, prompt, owner = jobs[j]
            labels = _fields(scenario)[n][1]
            choices.append(Choice(prompt, f"{answers[j]}, {_q(field)}:", labels, owner))
        for j, got in zip(todo, choose_many(caller, f"decide_{field}", choices)):
            answers[j] += f", {_q(field)}:{got.label}"
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


__all__ = ["prediction_choices", "scored_decisions", "scored_predictions"]
