"""Old home of the results-file helpers; they live in :mod:`benchmarks.results` (kept importable)."""

from benchmarks.results import ResultsFileWarning, append_record, read_records

__all__ = ["ResultsFileWarning", "append_record", "read_records"]
