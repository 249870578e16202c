#!/usr/bin/env python3
"""Runs every agoraish benchmark, prints one table, writes bench/results/latest.json.

    python3 bench/run.py                 # everything (minutes; the audio benchmarks ~2, the video ones ~4)
    python3 bench/run.py lib_load        # only the named benchmarks, merged into latest.json
    python3 bench/run.py --fresh video_cpu   # only these, and latest.json holds only them
    AGORAISH_LIBRARY=/path/libagoraish.so.0 python3 bench/run.py

The library measured is $AGORAISH_LIBRARY, else dist/lib/libagoraish.so.0.

A benchmark is a module in bench/benchmarks/ listed in BENCHMARKS below, with

    def run(ctx: Context) -> list[dict]

returning figures {"name", "value", "unit", "note"}. Benchmarks that are
programs (C, or anything else) print {"figures": [...]} on stdout and are run
through ``ctx.run_figures(argv)``; C sources are built with ``ctx.compile_c``.
Figures are medians unless the name says otherwise, and the note states N.

latest.json holds {"figures": [...], "machine": {...}, "library": {...},
"timestamp": "...", "runs": {...}, "errors": [...]}. Each figure also names
the benchmark that made it ("benchmark"), and "runs" gives each benchmark's
timestamp and duration. A run of named benchmarks replaces their figures
and errors in an existing latest.json and keeps the others (in BENCHMARKS
order), so one figure can be measured again without the whole suite;
"timestamp" and "duration_s" are then those of the last run. The exit
status is 1 if a benchmark failed (its error is in the table and in
"errors").
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
BUILD = ROOT / "build" / "bench"
RESULTS = BENCH / "results" / "latest.json"
HEADER = ROOT / "include" / "agoraish.h"

sys.path.insert(0, str(BENCH))
from benchmarks._common import BenchError, Figure, figure  # noqa: E402

#: The benchmarks, in the order they run and appear in the table.
BENCHMARKS: List[str] = [
    "lib_size",
    "lib_load",
    "engine_create_release",
    "join_latency",
    "sfu_forward",
    "abuse",
    "sfu_video_dual",
    "webrtc",
    "audio_delay",
    "audio_cpu",
    "multi_channel",
    "audio_pesq",
    "video_cpu",
    "video_delay",
    "video_loss",
    "media",
    "voice",
    "bwe_convergence",
    "data_stream",
    "encryption",
]

class Context:
    """What a benchmark gets: paths, a C compiler, helpers to run programs."""

    def __init__(self, library: Path, scratch: Path, quick: bool) -> None:
        #: The library under test (as given, may be a symlink).
        self.library = library
        #: ROOT of the checkout.
        self.root = ROOT
        #: A temporary directory, removed after the run.
        self.scratch = scratch
        #: Fewer repetitions (for a smoke run of the harness).
        self.quick = quick
        #: Environment for child processes: the same library for everyone.
        self.env = dict(os.environ, AGORAISH_LIBRARY=str(library))

    def repeats(self, n: int) -> int:
        """`n`, or a small number in quick mode."""
        return max(3, n // 5) if self.quick else n

    def functions(self) -> List[str]:
        """The names of every function declared in include/agoraish.h."""
        text = re.sub(r"/\*.*?\*/", " ", HEADER.read_text(), flags=re.S)
        names = re.findall(r"^[A-Za-z_][\w \t\*]*?\b(agoraish_\w+)\s*\(", text, flags=re.M)
        if not names:
            raise BenchError(f"no functions found in {HEADER}")
        return sorted(set(names))

    def compile_c(self, source: str, *extra: str) -> Path:
        """Builds bench/<source> into build/bench/ (when older than the source or a header it may include:
        include/agoraish.h, bench/*.h) and returns the binary."""
        src = BENCH / source
        out = BUILD / Path(source).stem
        BUILD.mkdir(parents=True, exist_ok=True)
        inputs = [src, HEADER, *BENCH.glob("*.h")]
        if not out.exists() or out.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
            cc = os.environ.get("CC", "gcc")
            cmd = [cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
                   f"-I{ROOT / 'include'}", str(src), "-o", str(out), *extra]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise BenchError(f"cannot compile {source}:\n{done.stderr.strip()}")
        return out

    def run_json(self, argv: Sequence[str], timeout: float = 60) -> Any:
        """Runs a program and parses its stdout as JSON."""
        done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=self.env,
                              timeout=timeout)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise BenchError(f"{Path(str(argv[0])).name} exited {done.returncode}: "
                             f"{detail[-1] if detail else 'no output'}")
        try:
            return json.loads(done.stdout)
        except json.JSONDecodeError as error:
            raise BenchError(f"{Path(str(argv[0])).name} printed no JSON: {error}") from None

    def run_figures(self, argv: Sequence[str], timeout: float = 60) -> List[Figure]:
        """Runs a program that prints {"figures": [...]} and returns them."""
        data = self.run_json(argv, timeout)
        figures = data.get("figures") if isinstance(data, dict) else None
        if not isinstance(figures, list):
            raise BenchError(f"{Path(str(argv[0])).name} printed no \"figures\" list")
        return figures


def machine() -> Dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def library_path() -> Path:
    explicit = os.environ.get("AGORAISH_LIBRARY")
    return Path(explicit) if explicit else ROOT / "dist" / "lib" / "libagoraish.so.0"


def format_value(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if value >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}" if value < 10 else f"{value:.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def print_table(figures: List[Figure]) -> None:
    rows = [(f["name"], format_value(f.get("value")), f.get("unit", ""), f.get("note", "")) for f in figures]
    header = ("name", "value", "unit", "note")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(3)]
    line = f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]:<{widths[2]}}  {header[3]}"
    print(line)
    print("-" * min(len(line) + 40, 120))
    for name, value, unit, note in rows:
        print(f"{name:<{widths[0]}}  {value:>{widths[1]}}  {unit:<{widths[2]}}  {note}")


def merge(old: Dict[str, Any], new_figures: List[Figure], ran: Sequence[str]) -> List[Figure]:
    """The figures of an earlier results file with those of the benchmarks in
    `ran` replaced by `new_figures`, ordered as BENCHMARKS. An old figure
    belongs to a benchmark that ran when it names it ("benchmark") or when a
    new figure has its name (files written before figures named their
    benchmark); old figures of benchmarks that did not run keep their place."""
    new_names = {f["name"]: f["benchmark"] for f in new_figures}
    groups: Dict[str, List[Figure]] = {}
    order: List[str] = []
    for f in old.get("figures", []):
        owner = f.get("benchmark") or new_names.get(f["name"])
        if owner in ran:
            key = owner
        else:
            key = owner or f"?{len(order)}"
            f = dict(f, benchmark=owner) if owner else f
        if key not in groups:
            groups[key] = []
            order.append(key)
        if owner not in ran:
            groups[key].append(f)
    for name in ran:
        if name not in groups:
            # A benchmark new to the file goes before the first group of a later one (else last).
            at = len(order)
            later = BENCHMARKS[BENCHMARKS.index(name) + 1:]
            for i, key in enumerate(order):
                if key in later:
                    at = i
                    break
            order.insert(at, name)
        groups[name] = [f for f in new_figures if f["benchmark"] == name]
    return [f for key in order for f in groups[key]]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (checks the harness)")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON (default: %(default)s)")
    parser.add_argument("--fresh", action="store_true",
                        help="write only this run's figures (named benchmarks are otherwise merged into the file)")
    args = parser.parse_args(argv)

    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    names = args.names or BENCHMARKS

    library = library_path()
    if not library.exists():
        print(f"bench: no library at {library} (build it with `make dist`, or set AGORAISH_LIBRARY)",
              file=sys.stderr)
        return 1

    figures: List[Figure] = []
    errors: List[Dict[str, str]] = []
    runs: Dict[str, Dict[str, Any]] = {}
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="agoraish-bench-"))
    try:
        ctx = Context(library, scratch, args.quick)
        for name in names:
            t0 = time.monotonic()
            stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
            try:
                module = importlib.import_module(f"benchmarks.{name}")
                made = module.run(ctx)
            except (BenchError, OSError, subprocess.SubprocessError) as error:
                errors.append({"benchmark": name, "error": str(error)})
                made = [figure(name, None, "", f"FAILED: {str(error).splitlines()[0]}")]
            figures.extend(dict(f, benchmark=name) for f in made)
            runs[name] = {"timestamp": stamp, "duration_s": round(time.monotonic() - t0, 1)}
            print(f"bench: {name} took {time.monotonic() - t0:.1f} s", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print_table(figures)
    result = {
        "figures": figures,
        "machine": machine(),
        "library": {"path": str(library), "resolved": str(library.resolve())},
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": round(time.monotonic() - started, 1),
        "runs": runs,
        "errors": errors,
    }
    if args.names and not args.fresh and args.output.exists():
        try:
            old = json.loads(args.output.read_text())
        except (OSError, json.JSONDecodeError) as error:
            print(f"bench: cannot merge into {args.output} ({error}); writing this run alone", file=sys.stderr)
        else:
            result["figures"] = merge(old, figures, names)
            result["runs"] = {**old.get("runs", {}), **runs}
            result["errors"] = [e for e in old.get("errors", []) if e.get("benchmark") not in names] + errors
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}"
          f" ({result['duration_s']} s)")
    for error in errors:
        print(f"bench: {error['benchmark']} failed: {error['error']}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
