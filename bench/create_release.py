#!/usr/bin/env python3
"""Engine create + release(sync=1) cycles from Python; prints {"figures": [...]}.

    create_release.py LOG_FILE CYCLES

Uses the agoraish package of bindings/python when it is in the checkout
(RtcEngine(app_id, log_file=...) then release()), else ctypes directly. The
library is AGORAISH_LIBRARY (set by bench/run.py). 10 warm-up cycles are not
counted; each cycle is timed with time.perf_counter.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINDINGS = ROOT / "bindings" / "python"
WARMUP = 10
APP_ID = "bench-create-release"


def cycle_with_package(log_file: str):
    sys.path.insert(0, str(BINDINGS))
    import agoraish

    def cycle() -> None:
        agoraish.RtcEngine(APP_ID, log_file=log_file).release(sync=True)

    return cycle, "agoraish package"


def cycle_with_ctypes(log_file: str):
    class Config(ctypes.Structure):
        _fields_ = [
            ("struct_size", ctypes.c_uint32),
            ("app_id", ctypes.c_char_p),
            ("event_handler", ctypes.c_void_p),
            ("server_url", ctypes.c_char_p),
            ("log_file", ctypes.c_char_p),
            ("log_file_size_kb", ctypes.c_int32),
            ("log_level", ctypes.c_int32),
            ("area_code", ctypes.c_uint32),
        ]

    lib = ctypes.CDLL(os.environ.get("AGORAISH_LIBRARY", str(ROOT / "dist/lib/libagoraish.so.0")))
    lib.agoraish_engine_create.restype = ctypes.c_void_p
    lib.agoraish_engine_create.argtypes = [ctypes.POINTER(Config)]
    lib.agoraish_engine_release.restype = ctypes.c_int
    lib.agoraish_engine_release.argtypes = [ctypes.c_void_p, ctypes.c_int]
    config = Config(ctypes.sizeof(Config), APP_ID.encode(), None, None, log_file.encode(), 0, 0, 0)

    def cycle() -> None:
        handle = lib.agoraish_engine_create(ctypes.byref(config))
        if not handle:
            raise RuntimeError("agoraish_engine_create failed")
        if lib.agoraish_engine_release(handle, 1) != 0:
            raise RuntimeError("agoraish_engine_release failed")

    return cycle, "ctypes (bindings/python absent)"


def main() -> int:
    log_file, cycles = sys.argv[1], int(sys.argv[2])
    if (BINDINGS / "agoraish" / "__init__.py").exists():
        cycle, via = cycle_with_package(log_file)
    else:
        cycle, via = cycle_with_ctypes(log_file)
    samples = []
    for i in range(-WARMUP, cycles):
        t0 = time.perf_counter()
        cycle()
        if i >= 0:
            samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    median = samples[len(samples) // 2] if len(samples) % 2 else sum(samples[len(samples) // 2 - 1:][:2]) / 2
    p99 = samples[min(len(samples), max(1, int(0.99 * len(samples) + 0.999999))) - 1]
    print(json.dumps({"figures": [
        {"name": "engine_create_release_python_us", "value": round(median, 2), "unit": "us",
         "note": f"median of N={cycles} create+release(sync=True) cycles in one process, via {via}"},
        {"name": "engine_create_release_python_p99_us", "value": round(p99, 2), "unit": "us",
         "note": f"p99 of the same N={cycles} cycles"},
    ]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
