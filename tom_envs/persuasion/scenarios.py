"""Scenario families of live persuasion v1: everyday persuasion goals and the personas met there.

Provenance: written by the tom-envs authors for this environment. The families follow the kind of
everyday domains that DailyPersuasion (Jin et al., 2024) -- the dialogues PersuasiveToM (seed
001) annotates -- spreads over (001 Figure 2: health, charity, shopping, leisure, work and
study, ...); no dialogue, sentence or statistic of either dataset is copied, and the persona
weights are our own design choices, not estimates. Each family has its own prior over personas,
so which concerns are likely depends on the domain; the persona itself stays hidden.

Every scenario is a goal (a verb phrase completing "<persuadee> should ..."), a background
sentence with ``{er}`` (persuader) and ``{ee}`` (persuadee) slots and the relationship; the names
are drawn at reset from :data:`NAMES`, so the same scenario reads differently across episodes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TypeVar

from tom_envs.persuasion.mind import Family, MindPersona

if TYPE_CHECKING:  # imported where used (mind_v2 imports this module)
    from tom_envs.persuasion.mind_v2 import MindPersonaV2

_F = TypeVar("_F")  # a family of any version
PROVENANCE = (
    "written by the tom-envs authors (DailyPersuasion-style everyday domains, 001 Figure 2); "
    "no text or statistic of DailyPersuasion or PersuasiveToM is copied; persona weights are design choices"
)


@dataclass(frozen=True)
class Scenario:
    """One persuasion goal in a family."""

    goal: str
    background: str


NAMES: tuple[str, ...] = (
    "Nora",
    "Felix",
    "Omar",
    "Jess",
    "Kai",
    "Meera",
    "Ines",
    "Paul",
    "Lena",
    "Tomas",
    "Aisha",
    "Ben",
    "Chloe",
    "Dev",
    "Elif",
    "Hugo",
    "Iris",
    "Jonah",
    "Keiko",
    "Luca",
    "Maya",
    "Nikhil",
    "Olga",
    "Priya",
    "Rafael",
    "Sara",
    "Theo",
    "Uma",
    "Viktor",
    "Yara",
)


# ---------------------------------------------------------------------- personas (shared archetypes, own weights)
# (the archetypes are data: personas.json beside this module)
def _persona_fields(row: dict) -> dict:
    """The fields of a v1 persona (:class:`MindPersona`) from its row of ``personas.json``; v2 adds its traits."""
    return {
        "name": row["name"],
        "description": row["description"],
        "concerns": tuple(row["concerns"]),
        "reluctance": row["reluctance"],
        "wariness": row["wariness"],
        "voice": tuple(row["voice"]),
        "warmth": row["warmth"],
        "touchiness": row["touchiness"],
    }


PERSONAS: tuple[MindPersona, ...] = tuple(
    MindPersona(**_persona_fields(p))
    for p in json.loads((Path(__file__).with_name("personas.json")).read_text(encoding="utf-8"))
)


def _family(name: str, title: str, weights: dict[str, float], scenarios: tuple[Scenario, ...]) -> Family:
    personas = tuple(p for p in PERSONAS if p.name in weights)
    return Family(name, title, personas, tuple(weights[p.name] for p in personas), scenarios)


FAMILIES: tuple[Family, ...] = (
    _family(
        "health",
        "health and fitness",
        {"skeptic": 0.35, "cautious": 0.3, "procrastinator": 0.35},
        (
            Scenario(
                "join the Sunday morning running group",
                "{er} runs with a group every Sunday and wants {ee}, who has not exercised in years, to come along.",
            ),
            Scenario(
                "book the overdue dental check-up",
                "{er} noticed that {ee}, a close friend, has put off the dentist for three years.",
            ),
            Scenario(
                "try cooking at home three evenings a week",
                "{er} shares a flat with {ee}, who orders takeaway almost every night.",
            ),
            Scenario(
                "take the stairs instead of the lift at work",
                "{er} and {ee} work on the sixth floor; {er} started taking the stairs last month.",
            ),
            Scenario(
                "get a flu vaccination this autumn",
                "{er} is a pharmacist; {ee}, a regular customer, has never had a flu shot.",
            ),
        ),
    ),
    _family(
        "charity",
        "charity and volunteering",
        {"thrifty": 0.3, "busy": 0.4, "conformist": 0.3},
        (
            Scenario(
                "volunteer for one shift at the food bank",
                "{er} coordinates volunteers at the local food bank and hopes {ee}, a neighbour, will help out.",
            ),
            Scenario(
                "donate to the children's hospital fundraiser",
                "{er} is collecting for the children's hospital and asks {ee}, a colleague, to contribute.",
            ),
            Scenario(
                "give blood at next week's drive",
                "{er} organises the office blood drive and wants {ee} to sign up for a slot.",
            ),
            Scenario(
                "mentor a first-year student this term",
                "{er} runs the alumni mentoring scheme and thinks {ee} would be a good mentor.",
            ),
            Scenario(
                "join the river clean-up on Saturday",
                "{er} is part of a group that cleans the riverbank monthly and invites {ee}, a friend.",
            ),
        ),
    ),
    _family(
        "shopping",
        "products and services",
        {"thrifty": 0.45, "skeptic": 0.3, "conformist": 0.25},
        (
            Scenario(
                "switch to the new energy provider",
                "{er} sells contracts for a green energy provider and is talking to {ee}, a homeowner.",
            ),
            Scenario(
                "buy the extended warranty for the laptop",
                "{er} works at an electronics shop; {ee} is about to buy a laptop.",
            ),
            Scenario(
                "upgrade to the premium gym membership",
                "{er} works at the front desk of a gym where {ee} has a basic membership.",
            ),
            Scenario(
                "try the meal-kit subscription for a month",
                "{er} uses a meal-kit service and wants {ee}, a friend who hates planning meals, to try it.",
            ),
            Scenario(
                "buy a bicycle instead of a second car",
                "{er} runs a bike shop; {ee} came in while shopping around for a second car.",
            ),
        ),
    ),
    _family(
        "leisure",
        "travel and leisure",
        {"procrastinator": 0.35, "conformist": 0.35, "cautious": 0.3},
        (
            Scenario(
                "come on the weekend hiking trip",
                "{er} is planning a hiking weekend with friends and wants {ee} to join.",
            ),
            Scenario(
                "join the botanical garden tour",
                "{er} booked a guided tour of the botanical garden and asks {ee} to come too.",
            ),
            Scenario(
                "sign up for the salsa class", "{er} takes a salsa class on Thursdays and thinks {ee} would enjoy it."
            ),
            Scenario(
                "spend the holiday abroad this year",
                "{er} wants {ee}, a partner who always holidays at home, to travel abroad this summer.",
            ),
            Scenario(
                "join the book club", "{er} hosts a monthly book club and invites {ee}, a colleague who loves novels."
            ),
        ),
    ),
    _family(
        "work",
        "work and study",
        {"busy": 0.35, "cautious": 0.35, "skeptic": 0.3},
        (
            Scenario(
                "enrol in the evening data-analysis course",
                "{er} is {ee}'s team lead and thinks the course would help {ee}'s career.",
            ),
            Scenario(
                "present the project at the team meeting",
                "{er} manages the project; {ee} did most of the work but avoids speaking in meetings.",
            ),
            Scenario(
                "adopt the new project-tracking tool",
                "{er} introduced a tracking tool at work; {ee} still keeps everything in e-mails.",
            ),
            Scenario(
                "apply for the open senior position",
                "{er} is {ee}'s mentor and believes {ee} is ready for the senior role.",
            ),
            Scenario(
                "join the study group before the exam",
                "{er} organises a study group and wants {ee}, a classmate, to take part.",
            ),
        ),
    ),
)


def named_family(families: Sequence[_F], name: str) -> _F:
    """The family called ``name`` among ``families`` (any version's: what has a ``name``).

    Raises:
        InvalidPersona: none is called so (the names are listed).
    """
    from tom_envs.persuasion.principles import InvalidPersona

    for fam in families:
        if fam.name == name:
            return fam
    raise InvalidPersona(f"unknown scenario family {name!r}; choose from {', '.join(f.name for f in families)}")


def family_named(name: str) -> Family:
    """The built-in family called ``name``."""
    return named_family(FAMILIES, name)


# ---------------------------------------------------------------------- v2: the same families, personas with v2 traits
def _persona_v2(row: dict) -> "MindPersonaV2":
    from tom_envs.persuasion.mind_v2 import MindPersonaV2, V2Traits

    t = row["v2"]
    traits = V2Traits(
        tuple(t["candour"]),
        tuple(t["mislead"]),
        int(t["front"]),
        float(t["tone_noise"]),
        float(t["reactance"]),
        float(t.get("leave", 0.0)),
        float(t.get("drift", 0.0)),
    )
    return MindPersonaV2(**_persona_fields(row), v2=traits)


def _families_v2() -> tuple[Family, ...]:
    rows = {
        p["name"]: _persona_v2(p)
        for p in json.loads((Path(__file__).with_name("personas.json")).read_text(encoding="utf-8"))
    }
    return tuple(
        Family(f.name, f.title, tuple(rows[p.name] for p in f.personas), f.weights, f.scenarios) for f in FAMILIES
    )


#: v2's families: v1's scenarios and persona weights, personas with their v2 traits (``personas.json``'s ``"v2"``).
FAMILIES_V2: tuple[Family, ...] = _families_v2()


def family_v2_named(name: str) -> Family:
    """The built-in v2 family called ``name``."""
    return named_family(FAMILIES_V2, name)
