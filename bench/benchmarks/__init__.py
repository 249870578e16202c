"""The benchmarks run by bench/run.py: one module each, with `run(ctx) -> list of figures`."""
