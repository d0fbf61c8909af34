"""Common-ground belief QA (seed 003, Common-ToM): corpus and question-file readers, question
generation with its answer rules, and the ``tom/CommonToM-v2`` environment
(:mod:`tom_envs.common_ground.env`, imported on ``gymnasium.make``)."""

from __future__ import annotations

from tom_envs.common_ground.corpus import (
    SAMPLE_DATA_DIR,
    Conversation,
    QuestionRow,
    read_corpus,
    read_questions,
    scan,
    write_questions,
)
from tom_envs.common_ground.questions import generate_questions, parse_question, question_text, resolve

__all__ = [
    "SAMPLE_DATA_DIR",
    "Conversation",
    "QuestionRow",
    "generate_questions",
    "parse_question",
    "question_text",
    "read_corpus",
    "read_questions",
    "resolve",
    "scan",
    "write_questions",
]
