"""The matrix family's part of the benchmarks layer."""
