"""lib_size_bytes / lib_stripped_size_bytes: the library file, as built and stripped."""

from __future__ import annotations

import subprocess
from typing import List

from ._common import BenchError, Figure, figure


def run(ctx) -> List[Figure]:
    real = ctx.library.resolve()
    stripped = ctx.scratch / "stripped.so"
    done = subprocess.run(["strip", "-o", str(stripped), str(real)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"strip failed: {done.stderr.strip()}")
    return [
        figure("lib_size_bytes", real.stat().st_size, "bytes", f"{real.name} as built (unstripped)"),
        figure("lib_stripped_size_bytes", stripped.stat().st_size, "bytes", "strip -o of a copy"),
    ]
