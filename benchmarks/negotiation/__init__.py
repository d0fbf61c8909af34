"""The negotiation family's part of the benchmarks layer."""
