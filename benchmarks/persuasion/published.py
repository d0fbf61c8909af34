"""001's published numbers: every row of Table 5 (accuracy per question type, mean and the ± the paper
prints) and of Table 6 (consistency), and what the paper gives of Figure 3.

The published reference rows are data: the command's tables and the report read them from here. The
values are copied from 001's text (Section 5, Tables 5 and 6), in the paper's row order."""

from __future__ import annotations

from tom_envs.persuasion import QTYPES

#: 001's Table 5, in the paper's row order: accuracy % per question type (:data:`QTYPES` order: persuader
#: desire, belief, intention; persuadee desire, belief, intention; strategy prediction; judgement) and the
#: ± it prints after each (over three repetitions; 001 does not name the statistic). Random Guess and
#: Human have no ±.
_TABLE5: dict[str, tuple[tuple[float, ...], tuple[float, ...] | None]] = {
    "Random Guess": ((50.00, 25.00, 16.67, 33.33, 25.00, 25.00, 25.00, 50.00), None),
    "Human": ((100.00, 92.31, 78.13, 84.62, 87.85, 94.42, 86.80, 97.95), None),
    "LLaMa-3.1-8B-Instruct": (
        (59.78, 65.84, 41.45, 68.09, 71.54, 83.67, 61.69, 93.58),
        (1.41, 0.63, 0.85, 2.57, 0.40, 4.38, 0.76, 3.95),
    ),
    "Qwen2.5-7B-Instruct": (
        (91.08, 83.09, 46.09, 64.76, 79.00, 82.77, 63.23, 95.63),
        (7.42, 1.01, 0.63, 0.55, 0.08, 4.35, 6.06, 0.28),
    ),
    "Gemma-2-9b-it": (
        (96.06, 83.36, 45.42, 62.87, 64.62, 80.24, 64.75, 63.23),
        (3.02, 1.20, 0.78, 2.12, 0.78, 2.93, 0.39, 8.92),
    ),
    "GLM4-9B-Chat": (
        (87.84, 69.00, 40.82, 63.18, 67.25, 83.54, 61.10, 93.38),
        (2.28, 6.55, 0.59, 2.90, 0.61, 2.56, 0.27, 2.70),
    ),
    "Mixtral-8x7B-Instruct": (
        (93.10, 71.03, 41.68, 68.27, 70.09, 83.92, 63.06, 95.36),
        (0.59, 4.90, 1.80, 2.08, 3.50, 1.67, 2.70, 2.05),
    ),
    "InternLM-2.5-7B-Chat": (
        (83.73, 70.46, 39.77, 71.94, 69.50, 85.29, 64.01, 74.29),
        (0.09, 1.14, 0.13, 0.69, 0.54, 2.86, 1.50, 0.61),
    ),
    "GPT-4o-mini": (
        (94.70, 70.66, 45.19, 70.78, 78.25, 86.62, 66.13, 91.52),
        (0.22, 0.96, 0.66, 0.09, 2.52, 1.33, 0.90, 1.60),
    ),
    "GPT-4o": (
        (95.56, 89.47, 46.28, 67.66, 81.73, 87.81, 73.55, 96.38),
        (4.51, 0.02, 0.37, 2.23, 2.41, 1.38, 0.78, 1.66),
    ),
    "LLaMa-3.1-8B-Instruct + CoT": (
        (59.83, 68.91, 41.47, 66.50, 70.53, 84.30, 62.97, 78.99),
        (0.11, 1.27, 2.32, 3.02, 4.13, 1.48, 1.40, 2.43),
    ),
    "Qwen2.5-7B-Instruct + CoT": (
        (86.64, 82.66, 45.69, 66.61, 78.77, 83.41, 65.94, 94.56),
        (2.30, 3.34, 0.54, 1.44, 0.89, 1.72, 0.64, 2.35),
    ),
    "Gemma-2-9b-it + CoT": (
        (95.72, 83.35, 44.89, 63.46, 66.07, 78.40, 67.56, 67.28),
        (0.26, 0.07, 0.58, 2.15, 0.68, 4.62, 0.64, 1.04),
    ),
    "GLM4-9B-Chat + CoT": (
        (86.58, 67.01, 44.49, 59.72, 69.34, 82.06, 63.21, 92.91),
        (1.24, 3.56, 1.51, 0.30, 2.45, 2.64, 1.09, 2.11),
    ),
    "Mixtral-8x7B-Instruct + CoT": (
        (92.47, 73.88, 42.15, 66.09, 70.64, 84.40, 66.71, 92.01),
        (0.23, 2.59, 4.10, 2.43, 0.91, 2.04, 1.14, 0.91),
    ),
    "InternLM-2.5-7B-Chat + CoT": (
        (89.50, 69.25, 39.34, 49.72, 64.48, 80.48, 56.98, 76.72),
        (5.76, 0.95, 0.09, 1.52, 1.21, 5.42, 3.97, 1.66),
    ),
    "GPT-4o-mini + CoT": (
        (91.65, 71.33, 46.15, 68.56, 76.27, 83.63, 67.16, 89.22),
        (2.51, 0.69, 0.85, 3.22, 2.51, 2.71, 1.52, 0.55),
    ),
    "GPT-4o + CoT": (
        (93.80, 85.50, 46.92, 67.56, 84.90, 87.17, 76.90, 95.53),
        (3.83, 2.74, 1.17, 1.64, 1.89, 0.52, 0.23, 0.49),
    ),
}

#: 001's Table 5: name -> {question type: accuracy %}, every row in the paper's order.
PUBLISHED: dict[str, dict[str, float]] = {
    name: dict(zip(QTYPES, values, strict=True)) for name, (values, _) in _TABLE5.items()
}
#: The ± 001's Table 5 prints after each accuracy (None for Random Guess and Human, which have none).
PUBLISHED_SPREAD: dict[str, dict[str, float] | None] = {
    name: None if spread is None else dict(zip(QTYPES, spread, strict=True)) for name, (_, spread) in _TABLE5.items()
}

#: 001's Table 6, every row in the paper's order: consistency % (dialogues whose questions of the type are all
#: right) of the persuadee desire, belief and intention questions.
PUBLISHED_CONSISTENCY: dict[str, dict[str, float]] = {
    name: dict(zip(("desire_ee", "belief_ee", "intent_ee"), values, strict=True))
    for name, values in {
        "LLaMa-3.1-8B-Instruct": (22.31, 21.71, 60.76),
        "LLaMa-3.1-8B-Instruct + CoT": (19.92, 22.86, 57.52),
        "Qwen2.5-7B-Instruct": (19.12, 31.81, 56.95),
        "Qwen2.5-7B-Instruct + CoT": (20.52, 24.76, 54.67),
        "InternLM2.5": (24.70, 20.19, 58.10),
        "InternLM2.5 + CoT": (6.57, 32.14, 53.71),
        "GPT-4o-mini": (23.39, 30.77, 60.79),
        "GPT-4o-mini + CoT": (16.13, 32.14, 56.95),
        "GPT-4o": (19.35, 36.19, 65.71),
        "GPT-4o + CoT": (6.57, 45.38, 62.02),
        "Human": (62.00, 56.00, 82.00),
    }.items()
}

#: What 001 gives of Figure 3 (the distribution of desire-question errors over the early, middle and late stage
#: of a dialogue, persuader left and persuadee right, with and without CoT): the figure prints no values, and
#: the text states only its shape. These are those statements, the one published reference a stage table can
#: be set beside; no number is claimed for the figure.
PUBLISHED_FIGURE3: dict[str, str] = {
    "desire_er": "errors concentrate early: at the beginning LLMs may not understand the persuader's desire; as the "
    "dialogue progresses it becomes relatively easy to identify",
    "desire_ee": "errors concentrate in the middle: the early desire to reject is relatively easy, hesitation in "
    "the middle is hard, and near the end the tendency to agree makes it easier again",
}
