"""Raw ctypes view of include/agoraish.h: library loading, structs, functions.

This module mirrors the C header one to one and adds nothing: the constants,
enums, structs, callback types and prototypes come from ``agoraish._abi``,
which ``make generate`` writes from the header, and every function is bound
here with its ``argtypes`` and ``restype`` under its C name. ``agoraish.engine`` builds the Python API on top of it; use this
module directly only for what that API does not cover.

Loading
-------
The library is looked up, in this order:

1. the path in the environment variable ``AGORAISH_LIBRARY``. When it is set
   it is the only place tried, so a wrong path is reported instead of being
   hidden by another copy of the library;
2. a copy inside this package: ``libagoraish.so.0``, then ``libagoraish.so``;
3. the system: ``libagoraish.so.0`` through the dynamic loader, then
   ``ctypes.util.find_library("agoraish")``.

Nothing is loaded when this module (or the package) is imported: the
structs, enums and callback types come from ``agoraish._abi`` alone, and
``import agoraish`` or ``import agoraish.token`` works without the library.
The first use of a function, of ``lib`` or of ``LIBRARY_PATH`` loads it (a
module-level ``__getattr__``, PEP 562); call :func:`load` to load it
earlier. If none of the places loads, that use raises
:class:`LibraryNotFoundError` naming every place tried; if the library lacks
a function of the header, :class:`LibraryMismatchError`. Either is raised
again by every later use, and nothing is bound until a load succeeds.

The library is loaded with ``ctypes.CDLL``, which releases the GIL for the
duration of every call. That is required: ``agoraish_engine_release()`` with
``sync`` waits for a callback that is running on the event thread, and that
callback needs the GIL to finish.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from typing import Any, Dict, List, Tuple

from ._abi import *  # noqa: F401,F403 (the generated mirror is this module's namespace)
from ._abi import FUNCTIONS

# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libagoraish.so.0"


class LibraryNotFoundError(OSError):
    """libagoraish could not be loaded; the message names every place tried."""


class LibraryMismatchError(ImportError):
    """The loaded library lacks functions that include/agoraish.h declares."""


def _load() -> Tuple[ctypes.CDLL, str]:
    """Loads libagoraish following the order in the module docstring."""
    explicit = os.environ.get("AGORAISH_LIBRARY")
    if explicit:
        try:
            return ctypes.CDLL(explicit), explicit
        except OSError as error:
            raise LibraryNotFoundError(
                f"cannot load libagoraish from AGORAISH_LIBRARY={explicit!r}: {error}"
            ) from None

    tried: List[str] = ["AGORAISH_LIBRARY (not set)"]
    for name in (_SONAME, "libagoraish.so"):
        path = os.path.join(_PACKAGE_DIR, name)
        if not os.path.exists(path):
            tried.append(f"{path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{path} ({error})")

    try:
        return ctypes.CDLL(_SONAME), _SONAME
    except OSError as error:
        tried.append(f"{_SONAME} through the dynamic loader ({error})")

    found = ctypes.util.find_library("agoraish")
    if found:
        try:
            return ctypes.CDLL(found), found
        except OSError as error:
            tried.append(f"{found} from ctypes.util.find_library ({error})")
    else:
        tried.append('ctypes.util.find_library("agoraish") (nothing found)')

    raise LibraryNotFoundError(
        "cannot find libagoraish; set AGORAISH_LIBRARY to the path of libagoraish.so.0. Tried:\n  "
        + "\n  ".join(tried)
    )


# --------------------------------------------------------------------------
# Functions, in header order, bound under their C names on first use
# --------------------------------------------------------------------------

_LAZY_NAMES = frozenset((*FUNCTIONS, "lib", "LIBRARY_PATH"))
_load_lock = threading.Lock()


def load() -> ctypes.CDLL:
    """Loads libagoraish (the order in the module docstring) and binds every
    function of the header under its C name, once; returns ``lib``.

    Raises :class:`LibraryNotFoundError` when no place loads and
    :class:`LibraryMismatchError` when the library lacks a function of the
    header; then nothing is bound and the next call tries again.
    """
    with _load_lock:
        loaded = globals().get("lib")
        if loaded is not None:
            return loaded
        library, path = _load()
        functions: Dict[str, Any] = {}
        missing: List[str] = []
        for name, (restype, argtypes) in FUNCTIONS.items():
            try:
                function = getattr(library, name)
            except AttributeError:
                missing.append(name)
                continue
            function.restype = restype
            function.argtypes = list(argtypes)
            functions[name] = function
        if missing:
            raise LibraryMismatchError(
                f"{path} does not export {', '.join(missing)}, which include/agoraish.h "
                "declares (check `nm -D --defined-only` on the library)"
            )
        globals().update(functions)
        globals()["LIBRARY_PATH"] = path
        globals()["lib"] = library  # last: its presence means everything is bound
        return library


def is_loaded() -> bool:
    """Whether :func:`load` has loaded the library (without loading it)."""
    return globals().get("lib") is not None


def __getattr__(name: str) -> Any:
    """The library's functions, ``lib`` (the ``ctypes.CDLL``) and
    ``LIBRARY_PATH`` (the path or name it was loaded from): the first such
    look-up loads the library (:func:`load`)."""
    if name in _LAZY_NAMES:
        load()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    """The module's names, the lazily bound ones included."""
    return sorted({*globals(), *_LAZY_NAMES})
