"""Benchmarks: suites of cases, peers to compare with, timing, and reports (table, JSON, plot)."""
