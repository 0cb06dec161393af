"""Retrieval benchmarks on public data (LongMemEval, LoCoMo), the store at
scale, and the relevance gate's trade-off on the dev set.

Each module's ``run(...)`` returns a report dict; ``kept bench ...`` prints it.
The data is never shipped: every command takes its path.
"""
