"""Engine create + release(sync=1) cycles, from C and from Python.

- engine_create_release_c_us / _c_p99_us: bench/create_release.c, 200 cycles
  in one process (plus 10 warm-up cycles), each timed with CLOCK_MONOTONIC;
- engine_create_release_python_us / _python_p99_us: bench/create_release.py,
  the same through the agoraish package (RtcEngine(...) + release()), or
  through ctypes when the package is not in the checkout.

Every engine logs to one file in the run's scratch directory.
"""

from __future__ import annotations

import sys
from typing import List

from ._common import Figure

CYCLES = 200


def run(ctx) -> List[Figure]:
    cycles = ctx.repeats(CYCLES)
    program = ctx.compile_c("create_release.c", "-ldl")
    figures = ctx.run_figures([program, ctx.library, ctx.scratch / "create_release_c.log", cycles])
    script = ctx.root / "bench" / "create_release.py"
    figures += ctx.run_figures([sys.executable, script, ctx.scratch / "create_release_py.log", cycles])
    return figures
