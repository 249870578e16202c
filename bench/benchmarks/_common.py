"""Helpers shared by bench/run.py and the benchmark modules."""

from __future__ import annotations

import statistics
from typing import Any, Dict, Optional, Sequence

Figure = Dict[str, Any]


class BenchError(RuntimeError):
    """A benchmark could not run; the message says why."""


def figure(name: str, value: Optional[float], unit: str, note: str) -> Figure:
    """One row of the table; `value` None means "not measured" (the note says why)."""
    return {"name": name, "value": value, "unit": unit, "note": note}


def median(samples: Sequence[float]) -> float:
    """The median of `samples`."""
    return statistics.median(samples)


def quantile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank quantile, as bench/create_release.c computes it."""
    ordered = sorted(samples)
    rank = min(len(ordered), max(1, int(q * len(ordered) + 0.999999)))
    return ordered[rank - 1]
