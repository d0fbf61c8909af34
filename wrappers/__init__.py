"""Gymnasium and PettingZoo wrappers: the ToM recorder (literal + functional ToM, one scorer for
every family), JSONL episode logs and text observations for language models."""

from wrappers.episode_log import JSONLEpisodeLog
from wrappers.text_obs import AECTextObservation, TextObservation
from wrappers.tom_recorder import AECToMRecorder, ToMRecorder
from wrappers.tom_scorer import ToMScorer

__all__ = ["AECTextObservation", "AECToMRecorder", "JSONLEpisodeLog", "TextObservation",
           "ToMRecorder", "ToMScorer"]
