"""The distributable tree `make dist` writes: relocatable, complete.

dist/ holds lib/ (the library, its SONAME link and agoraish.pc), include/
(the C header and the C++ wrapper) and bin/ (agoraish-server and
agoraish-token). A copy of it anywhere builds and runs a C and a C++ host
through pkg-config, and its tools run.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"

HOST_C = r"""
#include <stdio.h>
#include "agoraish.h"
int main(void) {
    int build = 0;
    const char *version = agoraish_get_version(&build);
    printf("%s %d\n", version, AGORAISH_ABI_VERSION_MINOR);
    return version == NULL;
}
"""

HOST_CPP = r"""
#include <cstdio>
#include "agoraish.hpp"
int main() {
    std::printf("%s\n", agoraish::RtcEngine::getVersion());
    return 0;
}
"""


@pytest.fixture(scope="module")
def moved(tmp_path_factory) -> Path:
    if not (DIST / "lib" / "agoraish.pc").exists():
        pytest.fail("dist/ is missing: `make test` builds it (make dist)")
    target = tmp_path_factory.mktemp("elsewhere") / "agoraish"
    shutil.copytree(DIST, target, symlinks=True)
    return target


def _pkg_config(prefix: Path, *args: str) -> list:
    out = subprocess.run(["pkg-config", *args, "agoraish"], env={"PKG_CONFIG_PATH": str(prefix / "lib")},
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_tree_is_complete():
    for rel in ("lib/libagoraish.so.0", "lib/libagoraish.so", "lib/agoraish.pc", "include/agoraish.h",
                "include/agoraish.hpp", "include/agoraish_callbacks.hpp", "bin/agoraish-server",
                "bin/agoraish-token"):
        assert (DIST / rel).exists(), rel


def test_pkg_config_follows_the_tree_where_it_lies(moved):
    flags = _pkg_config(moved, "--cflags", "--libs")
    assert f"-I{moved}/lib/../include" in flags, flags
    assert f"-L{moved}/lib/../lib" in flags, flags


@pytest.mark.parametrize("compiler,suffix,source", [("gcc", ".c", HOST_C), ("g++", ".cpp", HOST_CPP)])
def test_a_moved_tree_builds_and_runs_a_host(moved, tmp_path, compiler, suffix, source):
    src = tmp_path / f"host{suffix}"
    src.write_text(source)
    exe = tmp_path / "host"
    flags = _pkg_config(moved, "--cflags", "--libs")
    std = ["-std=c99"] if suffix == ".c" else ["-std=c++17"]
    subprocess.run([compiler, *std, "-Wall", "-Werror", str(src), *flags, f"-Wl,-rpath,{moved}/lib", "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    assert run.stdout.strip(), run.stdout
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout
    assert str(moved / "lib" / "libagoraish.so.0") in ldd, ldd


@pytest.mark.parametrize("tool", ["agoraish-server", "agoraish-token"])
def test_the_tools_run(moved, tool):
    run = subprocess.run([str(moved / "bin" / tool), "--help"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert "usage" in (run.stdout + run.stderr).lower()


def test_the_library_links_no_foundation_and_no_regex_engine():
    # The library uses the standard library, Glibc and the C libraries only:
    # FoundationEssentials (with _FoundationCollections and CoreFoundation's
    # Unicode tables) and _StringProcessing/_RegexParser (which String.contains(String),
    # split(separator: String), Regex and friends link) added 7 MB to the stripped library.
    lib = DIST / "lib" / "libagoraish.so.0"
    symbols = subprocess.run(["nm", str(lib)], capture_output=True, text=True, check=True).stdout
    for module in ["20FoundationEssentials", "22_FoundationCollections", "17_StringProcessing", "12_RegexParser",
                   "__CFUniChar"]:
        assert module not in symbols, f"libagoraish links {module}"
