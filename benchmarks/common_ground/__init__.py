"""The common ground family's part of the benchmarks layer."""
