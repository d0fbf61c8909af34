"""The persuasion family's part of the benchmarks layer."""
