"""Benchmarks of mcpcast against its peers; run them with ``bench/run NAME``."""
