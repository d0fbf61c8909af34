"""Gymnasium and PettingZoo wrappers: the ToM recorder (literal + functional ToM, one scorer for
every family), JSONL episode logs, text observations for language models and flat vector
observations for RL libraries (:class:`VectorizeObservation`, docs/rl.md), and one seat of a PettingZoo
AEC env as a Gymnasium env (:class:`SingleSeat`, the other seats played by given policies)."""

from wrappers.episode_log import JSONLEpisodeLog
from wrappers.single_seat import SingleSeat
from wrappers.text_obs import AECTextObservation, TextObservation
from wrappers.tom_recorder import AECToMRecorder, ToMRecorder
from wrappers.tom_scorer import ToMScorer
from wrappers.vectorize import VectorizeObservation, hash_text

__all__ = ["AECTextObservation", "AECToMRecorder", "JSONLEpisodeLog", "SingleSeat", "TextObservation",
           "ToMRecorder", "ToMScorer", "VectorizeObservation", "hash_text"]
