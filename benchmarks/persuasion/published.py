"""001's published numbers: Table 5 (accuracy per question type) and Table 6 (consistency).

The published reference rows are data: the command's tables and the report read them from here."""

from __future__ import annotations

from tom_envs.persuasion import QTYPES


#: 001's Table 5 (accuracy %, per question type in :data:`QTYPES` order) and Table 6 (consistency %
#: of the persuadee desire, belief, intention questions) for reference.
PUBLISHED: dict[str, dict[str, float]] = {
    name: dict(zip(QTYPES, values)) for name, values in {
        "Random Guess": (50.00, 25.00, 16.67, 33.33, 25.00, 25.00, 25.00, 50.00),
        "Human": (100.00, 92.31, 78.13, 84.62, 87.85, 94.42, 86.80, 97.95),
        "GPT-4o": (95.56, 89.47, 46.28, 67.66, 81.73, 87.81, 73.55, 96.38),
        "GPT-4o + CoT": (93.80, 85.50, 46.92, 67.56, 84.90, 87.17, 76.90, 95.53),
    }.items()}
PUBLISHED_CONSISTENCY: dict[str, dict[str, float]] = {
    "Human": {"desire_ee": 62.00, "belief_ee": 56.00, "intent_ee": 82.00},
    "GPT-4o": {"desire_ee": 19.35, "belief_ee": 36.19, "intent_ee": 65.71},
}
