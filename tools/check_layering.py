#!/usr/bin/env python3
"""Checks that the package keeps its layering (docs/architecture.md).

Three checks, each printing `file:line: message` per violation:

1. Imports. Every `import X` in a target's Swift files names a *direct*
   dependency of that target in Package.swift, a module of the Swift
   toolchain (SYSTEM_MODULES), or the target itself. Transitive
   dependencies do not count: what a file imports is declared where it is
   used. A declared package dependency that no file of the target imports
   is reported too, so the manifest's arrows are the real ones.
2. The drawing. The arrows listed in the ```layering block of
   docs/architecture.md are exactly the dependencies of the non-test targets
   in Package.swift.
3. Sans-IO. AgoraishWire, AgoraishMedia and AgoraishSession start no
   threads, open no sockets or files, read no clock and do not sleep: no
   such import (Dispatch, Foundation, Synchronization, ...), no Swift API
   for it (Thread, DispatchQueue, ContinuousClock, Date, FileManager, Task,
   ...) and no call to a C function for it (socket, pthread_create,
   clock_gettime, open, read, write, usleep, the shim's agsh_epoll_wait, ...)
   outside comments and string literals. A C call is recognised as a
   function name followed by `(` and an unlabeled argument, not preceded by
   `.` (a method) or `func`; `Glibc.name(` always counts. Documented
   exceptions go in ALLOWED with their reason.

The manifest is read with `swift package dump-package` (the real manifest
parser; it builds nothing). Python 3.11, standard library only.
Exit status: 0 clean, 1 violations, 2 the check itself could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

# Modules of the toolchain and the C library that any target may import.
SYSTEM_MODULES = {
    "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Glibc", "Dispatch",
    "Foundation", "FoundationEssentials", "Testing", "XCTest",
}

# Package code uses the standard library, Glibc and the C modules: full Foundation
# pulls ICU into the distributable, and FoundationEssentials (with
# _FoundationCollections, CoreFoundation's Unicode tables and the regex engine)
# added 7 MB to the stripped library. Tests may use either.
NOT_IN_SOURCES = {"Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML"}

# The sans-IO layers.
PURE_TARGETS = ("AgoraishWire", "AgoraishMedia", "AgoraishSession")

# Imports that bring threads, clocks, locks or files into a pure layer.
PURE_FORBIDDEN_IMPORTS = {
    "Dispatch": "threads and clocks",
    "Foundation": "files, threads and clocks",
    "FoundationNetworking": "sockets",
    "Synchronization": "locks for sharing across threads",
    "AgoraishIO": "the IO layer",
}

# Swift API for threads, clocks, sleeping and files (any use counts).
PURE_FORBIDDEN_SWIFT = [
    (r"\bThread\b", "a thread"),
    (r"\bDispatch(Queue|Source|Time|WallTime|Semaphore|Group|WorkItem)\b", "Dispatch"),
    (r"\b(ContinuousClock|SuspendingClock)\b", "a clock"),
    (r"\bDate\s*(\(|\.now\b)", "the wall clock"),
    (r"\bProcessInfo\b", "the process environment"),
    (r"\b(FileManager|FileHandle|FileDescriptor)\b", "file IO"),
    (r"\bTask\s*(\{|\(|\.(sleep|detached)\b)", "a task"),
    (r"\b(Mutex|Atomic)\s*<", "sharing across threads"),
]

# C functions for sockets, threads, clocks, sleeping and files.
PURE_FORBIDDEN_C = {
    "sockets": "socket socketpair bind connect listen accept accept4 recv recvfrom recvmsg recvmmsg "
               "send sendto sendmsg sendmmsg setsockopt getsockopt getaddrinfo poll ppoll select "
               "epoll_create epoll_create1 epoll_ctl epoll_wait eventfd "
               "agsh_epoll_ctl agsh_epoll_wait agsh_recvmmsg agsh_sendmmsg agsh_netlink_open",
    "threads": "pthread_create pthread_join pthread_detach pthread_mutex_init pthread_mutex_lock "
               "pthread_cond_wait pthread_cond_signal pthread_self fork "
               "agsh_set_thread_name agsh_gettid agsh_set_event_thread agsh_is_event_thread",
    "clocks": "clock_gettime clock_nanosleep gettimeofday time clock timerfd_create timerfd_settime "
              "agsh_timerfd_arm",
    "sleeping": "sleep usleep nanosleep",
    "file IO": "open openat creat close read write pread pwrite lseek fstat stat lstat unlink rename "
               "mkstemp fchmod mmap munmap ioctl fopen fdopen freopen fclose fread fwrite fseek fflush "
               "opendir readdir agsh_v4l2_open agsh_v4l2_fd_open agsh_v4l2_ioctl agsh_v4l2_mmap",
}

# Documented exceptions: (path relative to the package, name) -> why it is allowed. Keep it empty.
ALLOWED: dict[tuple[str, str], str] = {}

ARROWS_FENCE = "layering"


class Violations:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{where}: {message}")


def load_manifest(root: Path, swift: str) -> dict:
    # A scratch path of its own: dump-package then never waits for the lock of a build in .build.
    cmd = [swift, "package", "--package-path", str(root), "--scratch-path",
           str(root / ".build" / "layering"), "dump-package"]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        sys.exit(f"check_layering: `{' '.join(cmd)}` failed: {err.strip()}")
    return json.loads(out.stdout)


def dependency_names(target: dict) -> list[str]:
    names = []
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                names.append(dep[kind][0])
    return names


def target_dir(root: Path, target: dict) -> Path:
    if target.get("path"):
        return root / target["path"]
    return root / ("Tests" if target["type"] == "test" else "Sources") / target["name"]


def strip_comments_and_strings(text: str) -> str:
    """`text` with comments and string literals blanked (newlines kept, so line numbers hold)."""
    out = []
    i, n, depth = 0, len(text), 0
    while i < n:
        c = text[i]
        if depth:  # inside /* */, which nests in Swift
            if text.startswith("/*", i):
                depth, i = depth + 1, i + 2
                out.append("  ")
            elif text.startswith("*/", i):
                depth, i = depth - 1, i + 2
                out.append("  ")
            else:
                out.append("\n" if c == "\n" else " ")
                i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            out.append("  ")
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i + hashes
            triple = text.startswith('"""', start)
            quote = '"""' if triple else '"'
            close = quote + "#" * hashes
            j = start + len(quote)
            while j < n and not text.startswith(close, j):
                j += 2 if (text[j] == "\\" and not hashes) else 1
            j = min(n, j + len(close))
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


IMPORT_RE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)",
    re.M,
)


def swift_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.swift") if p.is_file())


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def check_imports(root: Path, manifest: dict, v: Violations) -> None:
    targets = {t["name"]: t for t in manifest["targets"]}
    for t in manifest["targets"]:
        directory = target_dir(root, t)
        deps = set(dependency_names(t))
        used: set[str] = set()
        for f in swift_files(directory):
            text = strip_comments_and_strings(f.read_text(encoding="utf-8"))
            for m in IMPORT_RE.finditer(text):
                module = m.group(1)
                used.add(module)
                where = f"{f.relative_to(root)}:{line_of(text, m.start(1))}"
                if module in targets:
                    if module not in deps and module != t["name"]:
                        v.add(where, f"{t['name']} imports {module}, which is not among its dependencies "
                                     f"in Package.swift")
                elif module not in SYSTEM_MODULES:
                    v.add(where, f"{t['name']} imports {module}, neither a target of the package nor a "
                                 f"toolchain module")
                if t["type"] != "test" and module in NOT_IN_SOURCES:
                    v.add(where, f"{t['name']} imports {module}; package code uses the standard library, "
                                 f"Glibc and the C modules (Foundation links ICU, FoundationEssentials 7 MB)")
        if not swift_files(directory):
            continue  # a C or system-library target
        for dep in sorted(deps - used):
            if dep in targets:
                v.add("Package.swift", f"{t['name']} depends on {dep}, which none of its Swift files imports")


def parse_arrows(doc: Path, where: str, v: Violations) -> dict[str, set[str]] | None:
    text = doc.read_text(encoding="utf-8")
    m = re.search(r"^```" + ARROWS_FENCE + r"[ \t]*\n(.*?)^```", text, re.M | re.S)
    if not m:
        v.add(where, f"no ```{ARROWS_FENCE} block listing the dependency arrows")
        return None
    arrows: dict[str, set[str]] = {}
    first = line_of(text, m.start(1))
    last = None  # an indented line without an arrow continues the line before
    for k, raw in enumerate(m.group(1).splitlines()):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, rest = line.partition("->")
        if not sep and last is not None and raw[:1].isspace():
            arrows[last] |= {d for d in re.split(r"[,\s]+", line) if d}
            continue
        name = name.strip()
        if not sep or not name or name in arrows:
            v.add(f"{where}:{first + k}", f"expected `Target -> Dep, Dep` once per target: {raw.strip()!r}")
            last = None
            continue
        arrows[name] = {d for d in re.split(r"[,\s]+", rest.strip()) if d}
        last = name
    return arrows


def check_drawing(root: Path, manifest: dict, v: Violations) -> None:
    doc = root / "docs" / "architecture.md"
    rel = doc.relative_to(root)
    drawn = parse_arrows(doc, str(rel), v)
    if drawn is None:
        return
    real = {t["name"]: set(dependency_names(t)) for t in manifest["targets"]
            if t["type"] != "test" and dependency_names(t)}
    for name in sorted(real.keys() | drawn.keys()):
        missing = real.get(name, set()) - drawn.get(name, set())
        extra = drawn.get(name, set()) - real.get(name, set())
        if missing:
            v.add(str(rel), f"{name} -> {', '.join(sorted(missing))} is in Package.swift but not drawn")
        if extra:
            v.add(str(rel), f"{name} -> {', '.join(sorted(extra))} is drawn but not in Package.swift")


def c_call_regex() -> tuple[re.Pattern, dict[str, str]]:
    kinds = {name: kind for kind, names in PURE_FORBIDDEN_C.items() for name in names.split()}
    names = "|".join(sorted(kinds, key=len, reverse=True))
    # Not a method (`.read(`), a declaration (`func read(`) or a labeled call (`close(code:`).
    pattern = re.compile(
        r"(?:(?<![\w.])|(?<=\bGlibc\.))(?<!func )(" + names + r")\s*\((?!\s*\w+\s*:(?!:))"
    )
    return pattern, kinds


def check_pure(root: Path, manifest: dict, v: Violations) -> None:
    c_call, kinds = c_call_regex()
    swift_api = [(re.compile(p), why) for p, why in PURE_FORBIDDEN_SWIFT]
    targets = {t["name"]: t for t in manifest["targets"]}
    c_modules = {name for name, t in targets.items()
                 if t["type"] == "system" or not swift_files(target_dir(root, t))}
    for name in PURE_TARGETS:
        for f in swift_files(target_dir(root, targets[name])):
            rel = str(f.relative_to(root))
            text = strip_comments_and_strings(f.read_text(encoding="utf-8"))
            imports = {m.group(1): m.start(1) for m in IMPORT_RE.finditer(text)}

            def report(offset: int, key: str, message: str) -> None:
                if (rel, key) not in ALLOWED:
                    v.add(f"{rel}:{line_of(text, offset)}", f"{name} is sans-IO: {message}")

            for module, offset in imports.items():
                if module in PURE_FORBIDDEN_IMPORTS:
                    report(offset, module, f"imports {module} ({PURE_FORBIDDEN_IMPORTS[module]})")
            for pattern, why in swift_api:
                for m in pattern.finditer(text):
                    report(m.start(), m.group(0).strip("(<{ "), f"{m.group(0).strip()} ({why})")
            # C functions are visible only through Glibc, Foundation or a C module.
            if not any(m in c_modules or m in ("Glibc", "Foundation", "FoundationEssentials") for m in imports):
                continue
            for m in c_call.finditer(text):
                report(m.start(1), m.group(1), f"calls {m.group(1)}() ({kinds[m.group(1)]})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default=Path(__file__).resolve().parent.parent, type=Path,
                        help="the package directory (default: this checkout)")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift driver")
    parser.add_argument("--manifest", type=Path, help="JSON from `swift package dump-package` instead of running it")
    args = parser.parse_args()
    root = args.package.resolve()
    manifest = json.loads(args.manifest.read_text()) if args.manifest else load_manifest(root, args.swift)

    v = Violations()
    check_imports(root, manifest, v)
    check_drawing(root, manifest, v)
    check_pure(root, manifest, v)
    for item in v.items:
        print(item)
    sys.stdout.flush()
    if v.items:
        print(f"check_layering: {len(v.items)} violation(s); the rules are in docs/architecture.md",
              file=sys.stderr)
        return 1
    print("check_layering: imports follow Package.swift, which matches docs/architecture.md; "
          f"{', '.join(PURE_TARGETS)} are sans-IO")
    return 0


if __name__ == "__main__":
    sys.exit(main())
