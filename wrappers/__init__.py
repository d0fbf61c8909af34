"""Gymnasium and PettingZoo wrappers: the ToM recorder (literal + functional ToM, one scorer for
every family), JSONL episode logs, text observations for language models and flat vector
observations for RL libraries (:class:`VectorizeObservation`, docs/rl.md), and one seat of a PettingZoo
AEC or parallel env as a Gymnasium env (:class:`SingleSeat`, :class:`ParallelSeat`: the other seats played
by given policies)."""

from wrappers.episode_log import JSONLEpisodeLog
from wrappers.parallel_seat import ParallelSeat
from wrappers.single_seat import SingleSeat
from wrappers.text_obs import AECTextObservation, TextObservation
from wrappers.tom_recorder import AECToMRecorder, ToMRecorder
from wrappers.tom_scorer import ToMScorer
from wrappers.vectorize import VectorizeObservation, hash_text

__all__ = [
    "AECTextObservation",
    "AECToMRecorder",
    "JSONLEpisodeLog",
    "ParallelSeat",
    "SingleSeat",
    "TextObservation",
    "ToMRecorder",
    "ToMScorer",
    "VectorizeObservation",
    "hash_text",
]
