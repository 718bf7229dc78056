"""Helpers the tests and the benchmarks share: the evaluation data staged as docs folders, small
docs folders written for a test, and the gates of benchmarks/thresholds.toml. Neither tests/ nor
benchmarks/ imports the other; both import this."""
