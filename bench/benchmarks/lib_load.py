"""Library load time in fresh processes, side by side.

Each round starts one fresh process per measurement, in turn, so that drift
(page cache, frequency scaling, other load) affects all of them alike:

- lib_load_c_ms: dlopen(RTLD_NOW) + dlsym of every header function, from C
  (bench/load_time.c), timed inside the process;
- lib_load_libc_baseline_ms: the same for a small system library (libz.so.1
  and 11 of its functions), for scale;
- lib_load_python_ms: `import agoraish` (the ctypes binding in
  bindings/python, which loads the library and declares every function),
  timed inside a fresh interpreter; falls back to ctypes.CDLL when the
  package is not in the checkout;
- lib_load_python_ctypes_ms: `import ctypes` + ctypes.CDLL + a lookup of
  every function, without the package.

Interpreter start-up is not included. One warm-up round is not counted.
"""

from __future__ import annotations

import json
import sys
from typing import Dict, List

from ._common import Figure, figure, median

ROUNDS = 25
BASELINE = "libz.so.1"
BASELINE_SYMBOLS = [
    "zlibVersion", "deflateInit_", "deflate", "deflateEnd", "inflateInit_", "inflate", "inflateEnd",
    "crc32", "adler32", "compress", "uncompress",
]

# Timed inside the child: everything between the two perf_counter calls.
PY_CTYPES = """\
import time
t0 = time.perf_counter()
import ctypes
lib = ctypes.CDLL({path!r})
for name in {names!r}:
    getattr(lib, name)
t1 = time.perf_counter()
import json
print(json.dumps({{"ms": (t1 - t0) * 1e3}}))
"""

PY_PACKAGE = """\
import sys
sys.path.insert(0, {bindings!r})
import time
t0 = time.perf_counter()
import agoraish
t1 = time.perf_counter()
import json
print(json.dumps({{"ms": (t1 - t0) * 1e3}}))
"""


def run(ctx) -> List[Figure]:
    names = ctx.functions()
    load_time = ctx.compile_c("load_time.c", "-ldl")
    bindings = ctx.root / "bindings" / "python"
    have_package = (bindings / "agoraish" / "__init__.py").exists()

    probes: Dict[str, List[str]] = {
        "c": [str(load_time), str(ctx.library), *names],
        "baseline": [str(load_time), BASELINE, *BASELINE_SYMBOLS],
        "py_ctypes": [sys.executable, "-c", PY_CTYPES.format(path=str(ctx.library), names=names)],
    }
    if have_package:
        probes["py_package"] = [sys.executable, "-c", PY_PACKAGE.format(bindings=str(bindings))]

    rounds = ctx.repeats(ROUNDS)
    samples: Dict[str, List[float]] = {key: [] for key in probes}
    for round_no in range(rounds + 1):
        for key, argv in probes.items():
            ms = float(ctx.run_json(argv)["ms"])
            if round_no > 0:  # round 0 warms the page cache
                samples[key].append(ms)

    c_ms, base_ms = median(samples["c"]), median(samples["baseline"])
    figures = [
        figure("lib_load_c_ms", c_ms, "ms",
               f"dlopen+dlsym of {len(names)} functions from C, median of N={rounds} fresh processes "
               f"({c_ms / base_ms:.0f}x the baseline)"),
        figure("lib_load_libc_baseline_ms", base_ms, "ms",
               f"same for {BASELINE} ({len(BASELINE_SYMBOLS)} functions), median of N={rounds}"),
    ]
    if have_package:
        figures.append(figure("lib_load_python_ms", median(samples["py_package"]), "ms",
                              f"`import agoraish` (bindings/python), median of N={rounds} fresh interpreters"))
    else:
        figures.append(figure("lib_load_python_ms", median(samples["py_ctypes"]), "ms",
                              f"bindings/python absent: ctypes.CDLL as below, median of N={rounds}"))
    figures.append(figure("lib_load_python_ctypes_ms", median(samples["py_ctypes"]), "ms",
                          f"import ctypes + CDLL + {len(names)} lookups, median of N={rounds} fresh interpreters"))
    return figures


