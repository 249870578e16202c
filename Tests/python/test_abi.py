"""The C ABI contract: header, exported symbols, Swift signature check, ctypes mirror, layout.

include/agoraish.h is the single source of truth. These tests fail when the
library exports something the header does not declare (or misses something
it does), when ABICheck.swift stops checking a function, when the Python
mirror in agoraish/_ffi.py drifts, or when C and ctypes disagree on a struct.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

import abi_header
from support import ROOT, library_path

HEADER_FUNCTIONS = abi_header.functions()
HEADER_STRUCTS = abi_header.structs()
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]


def _run(cmd, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kwargs)


def test_header_declares_functions():
    assert len(HEADER_FUNCTIONS) >= 11, sorted(HEADER_FUNCTIONS)


def test_header_reader_sees_every_prototype():
    # Every `agoraish_x(` in the code (not comments) must be a prototype the reader parsed.
    code = abi_header._code(abi_header.header_text())
    mentioned = set(re.findall(r"\b(agoraish_\w+)\s*\(", code))
    assert mentioned == set(HEADER_FUNCTIONS)


# --------------------------------------------------------------------------
# Exported symbols
# --------------------------------------------------------------------------


def _global_defined_symbols(path: Path) -> Dict[str, str]:
    """name -> nm type letter for every GLOBAL defined dynamic symbol (uppercase letters only)."""
    out = _run(["nm", "-D", "--defined-only", str(path)])
    assert out.returncode == 0, out.stderr
    symbols: Dict[str, str] = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[-2], parts[-1].split("@")[0]
        if len(kind) == 1 and kind.isupper():  # lowercase letters are local symbols
            symbols[name] = kind
    return symbols


@pytest.fixture(scope="module")
def exported() -> Dict[str, str]:
    path = library_path()
    if not path.exists():
        pytest.fail(f"no library at {path}: run `make dist` or set AGORAISH_LIBRARY")
    return _global_defined_symbols(path)


def test_exports_equal_header_functions(exported):
    missing = sorted(set(HEADER_FUNCTIONS) - set(exported))
    extra = sorted(set(exported) - set(HEADER_FUNCTIONS))
    assert not missing and not extra, (
        f"{library_path()}: header functions not exported: {missing}; "
        f"exported but not in the header: {extra}"
    )


def test_exports_are_functions(exported):
    not_text = {name: kind for name, kind in exported.items() if name in HEADER_FUNCTIONS and kind != "T"}
    assert not not_text


# --------------------------------------------------------------------------
# Swift compile-time signature check
# --------------------------------------------------------------------------


def test_every_function_is_checked_in_abicheck_swift():
    source = (ROOT / "Sources" / "agoraish" / "ABICheck.swift").read_text(encoding="utf-8")
    source = re.sub(r"//[^\n]*", "", source)
    checked = set(re.findall(r"\bCAgoraishABI\.(agoraish_\w+)\b", source))
    assert set(HEADER_FUNCTIONS) - checked == set(), "add these to ABICheck.swift"
    assert checked - set(HEADER_FUNCTIONS) == set(), "ABICheck.swift names functions the header lacks"


# --------------------------------------------------------------------------
# The ctypes mirror
# --------------------------------------------------------------------------


def _ctypes_for(ctype: str, ffi):
    """The ctypes type that must stand for a C type of the header."""
    table = {
        "void": None,
        "int": ctypes.c_int,
        "unsigned int": ctypes.c_uint,
        "int32_t": ctypes.c_int32,
        "uint32_t": ctypes.c_uint32,
        "int *": ctypes.POINTER(ctypes.c_int),
        "size_t *": ctypes.POINTER(ctypes.c_size_t),
        "char *": ctypes.POINTER(ctypes.c_char),
        "const char *": ctypes.c_char_p,
        "void *": ctypes.c_void_p,
        "agoraish_engine_t *": ctypes.c_void_p,
    }
    if ctype in table:
        return table[ctype]
    m = re.fullmatch(r"(?:const )?(agoraish_\w+) \*", ctype)
    if m and m.group(1) in ffi.STRUCTS:
        return ctypes.POINTER(ffi.STRUCTS[m.group(1)])
    pytest.fail(f"the test does not know how ctypes spells the C type {ctype!r}: extend _ctypes_for")


def test_ffi_declares_exactly_the_header_functions(ffi):
    assert list(ffi.FUNCTIONS) == list(HEADER_FUNCTIONS), "keep _ffi.FUNCTIONS in header order"


@pytest.mark.parametrize("name", sorted(HEADER_FUNCTIONS))
def test_ffi_function_signature(ffi, name):
    function = getattr(ffi, name, None)
    assert function is not None, f"_ffi does not declare {name}"
    assert function.argtypes is not None, f"{name}.argtypes is not set"
    assert "restype" in dir(function)
    decl = HEADER_FUNCTIONS[name]
    assert function.restype is _ctypes_for(decl.restype, ffi), f"{name} restype"
    expected = [_ctypes_for(p.ctype, ffi) for p in decl.params]
    assert list(function.argtypes) == expected, f"{name} argtypes"


def test_ffi_structs_are_the_header_structs(ffi):
    assert set(ffi.STRUCTS) == set(HEADER_STRUCTS)


@pytest.mark.parametrize("struct", sorted(HEADER_STRUCTS))
def test_ffi_struct_fields_match_header(ffi, struct):
    cls = ffi.STRUCTS[struct]
    fields = cls._fields_
    assert [f[0] for f in fields] == [f.name for f in HEADER_STRUCTS[struct]]
    for (name, ctype), field in zip(fields, HEADER_STRUCTS[struct]):
        if field.callback is None:
            assert ctype is _ctypes_for(field.ctype, ffi), f"{struct}.{name}"
        else:
            restype, params = field.callback
            assert issubclass(ctype, ctypes._CFuncPtr), f"{struct}.{name} is not a CFUNCTYPE"
            assert ctype._restype_ is _ctypes_for(restype, ffi), f"{struct}.{name} restype"
            assert list(ctype._argtypes_) == [_ctypes_for(p.ctype, ffi) for p in params], f"{struct}.{name} args"


def test_ffi_constants_match_header(ffi):
    header = abi_header.constants()
    assert header, "no constants read from the header"
    wrong = {name: (value, getattr(ffi, name, "<missing>")) for name, value in header.items()
             if getattr(ffi, name, None) != value}
    assert not wrong, f"name: (header, _ffi) {wrong}"


# --------------------------------------------------------------------------
# Struct layout: C (the probe) against ctypes
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def probe_layout(tmp_path_factory) -> Dict[str, Dict[str, int]]:
    path = os.environ.get("AGORAISH_ABI_LAYOUT")
    if path and Path(path).exists():
        return json.loads(Path(path).read_text(encoding="utf-8"))
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    assert cc, "no C compiler to build Tests/c/layout_probe.c"
    exe = tmp_path_factory.mktemp("probe") / "layout_probe"
    build = _run([cc, "-std=c99", *STRICT, f"-I{ROOT / 'include'}", str(ROOT / "Tests/c/layout_probe.c"), "-o", str(exe)])
    assert build.returncode == 0, build.stderr
    out = _run([str(exe)])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_probe_knows_every_header_struct(probe_layout):
    assert set(abi_header.struct_names_declared()) == set(HEADER_STRUCTS)
    assert set(HEADER_STRUCTS) <= set(probe_layout), "add the struct to Tests/c/layout_probe.c"


def test_probe_and_ctypes_have_the_same_structs(probe_layout, ffi):
    assert set(probe_layout) == set(ffi.STRUCTS)


@pytest.mark.parametrize("struct", sorted(HEADER_STRUCTS))
def test_struct_layout_matches_c(probe_layout, ffi, struct):
    c_layout = dict(probe_layout[struct])
    size = c_layout.pop("__size__")
    cls = ffi.STRUCTS[struct]
    assert ctypes.sizeof(cls) == size, f"sizeof({struct})"
    py_layout = {name: getattr(cls, name).offset for name, *_ in cls._fields_}
    assert py_layout == c_layout, f"offsets of {struct}"
    assert set(c_layout) == {f.name for f in HEADER_STRUCTS[struct]}, "the probe misses a field"


# --------------------------------------------------------------------------
# The header compiles cleanly
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "compiler,std,lang,extra",
    [
        ("gcc", "c99", "c", ["-Wstrict-prototypes"]),
        ("gcc", "c11", "c", ["-Wstrict-prototypes"]),
        ("g++", "c++17", "c++", []),
    ],
)
def test_header_compiles(compiler, std, lang, extra):
    if not shutil.which(compiler):
        pytest.fail(f"{compiler} is not installed")
    source = '#include "agoraish.h"\n#include "agoraish.h"\nint main(void) { return 0; }\n'
    out = _run(
        [compiler, f"-std={std}", *STRICT, *extra, f"-I{ROOT / 'include'}", "-fsyntax-only", "-x", lang, "-"],
        input=source,
    )
    assert out.returncode == 0, out.stderr


# --------------------------------------------------------------------------
# The distributable library
# --------------------------------------------------------------------------


def test_library_needs_no_swift_runtime():
    out = _run(["ldd", str(library_path())])
    assert out.returncode == 0, out.stderr
    forbidden = re.compile(r"libswift|libFoundation|libdispatch|libBlocksRuntime|not found")
    bad = [line.strip() for line in out.stdout.splitlines() if forbidden.search(line)]
    assert not bad, bad


def test_library_soname():
    out = _run(["readelf", "-d", str(library_path())])
    assert out.returncode == 0, out.stderr
    assert re.search(r"\(SONAME\)\s+Library soname: \[libagoraish\.so\.0\]", out.stdout), out.stdout


def test_binding_loads_the_library_under_test(ffi):
    assert os.path.samefile(ffi.LIBRARY_PATH, library_path())


# --------------------------------------------------------------------------
# How the binding finds the library
# --------------------------------------------------------------------------


def _import_in_subprocess(pythonpath: Path, library: str = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "AGORAISH_LIBRARY"}
    env["PYTHONPATH"] = str(pythonpath)
    if library is not None:
        env["AGORAISH_LIBRARY"] = library
    code = "from agoraish import _ffi; print(_ffi.LIBRARY_PATH)"
    return _run([sys.executable, "-c", code], env=env, cwd=str(pythonpath))


def test_lookup_uses_agoraish_library_first():
    from support import BINDING

    out = _import_in_subprocess(BINDING, str(library_path()))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(library_path())


def test_lookup_reports_a_wrong_agoraish_library(tmp_path):
    from support import BINDING

    missing = str(tmp_path / "nowhere" / "libagoraish.so.0")
    out = _import_in_subprocess(BINDING, missing)
    assert out.returncode != 0
    assert "LibraryNotFoundError" in out.stderr and missing in out.stderr


def test_lookup_finds_a_copy_inside_the_package(tmp_path):
    from support import BINDING

    shutil.copytree(BINDING / "agoraish", tmp_path / "agoraish", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "agoraish" / "libagoraish.so.0").symlink_to(library_path().resolve())
    out = _import_in_subprocess(tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(tmp_path / "agoraish" / "libagoraish.so.0")


def test_lookup_names_every_place_tried(tmp_path):
    from support import BINDING

    shutil.copytree(BINDING / "agoraish", tmp_path / "agoraish", ignore=shutil.ignore_patterns("__pycache__"))
    out = _import_in_subprocess(tmp_path, "")
    if out.returncode == 0:  # installed system-wide (make install): found through the loader
        assert out.stdout.strip() in ("libagoraish.so.0",) or "libagoraish" in out.stdout
        return
    for place in ("AGORAISH_LIBRARY", str(tmp_path / "agoraish" / "libagoraish.so.0"), "dynamic loader",
                  "find_library"):
        assert place in out.stderr, (place, out.stderr)
