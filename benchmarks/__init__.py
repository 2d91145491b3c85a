"""Benchmarks run by ``king bench``: each module has ``run(seconds) -> dict``."""
