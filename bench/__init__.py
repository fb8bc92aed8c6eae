"""Benchmarks: ratios against baselines measured in the same run (./dev bench)."""
