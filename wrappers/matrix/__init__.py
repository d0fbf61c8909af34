"""The matrix family's part of the wrappers layer: its ToM scorer (:mod:`wrappers.matrix.scorer`)."""

from wrappers.matrix.scorer import MatrixToMScorer

__all__ = ["MatrixToMScorer"]
