"""``tom-envs`` (``python -m benchmarks``): the evaluation spine -- :mod:`~benchmarks.runner` (episodes and
grid cells), :mod:`~benchmarks.results` (stamped, locked, resumable records), :mod:`~benchmarks.cli` (the
shared options) and :mod:`~benchmarks.family` (benchmark declarations) -- and every family's benchmark."""
